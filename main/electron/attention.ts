/**
 * The count on the app's icon (the dock, the taskbar, Unity's launcher): the conversations that
 * need the person, as the page's title counts them ("(2) Baton", see the renderer's
 * `useAttentionTitle`). Zero clears the badge.
 */
export function attentionCount(title: string): number {
  const counted = /^\((\d{1,6})\) /.exec(title);
  return counted ? Number(counted[1]) : 0;
}
