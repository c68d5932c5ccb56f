/** The `baton` ESLint plugin with its `layers` rule. */
declare const plugin: { rules: { layers: unknown } };
export default plugin;
