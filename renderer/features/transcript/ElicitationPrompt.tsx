/**
 * An MCP server's request for input, forwarded by the agent: a form built from its schema, or a
 * link to open. Nothing is sent until the person submits, declines or cancels; the values go to
 * the agent and are not kept in the transcript.
 */
import { useId, useState, type FormEvent } from 'react';
import {
  checkElicitationAnswer,
  fieldChoices,
  formIsShowable,
  type ElicitationField,
  type ElicitationValue,
} from '../../../app/agents/elicitation.js';
import type { TranscriptItem } from '../../../app/transcript/index.js';
import { useBaton } from '../../store/index.js';
import { useScopedConversation } from '../../components/conversationScope.js';
import { Tick } from '../../components/Tick.js';

type ElicitationItem = Extract<TranscriptItem, { kind: 'elicitation' }>;

function initialValue(field: ElicitationField): ElicitationValue | undefined {
  if (field.default !== undefined && field.default !== null) {
    return field.default;
  }
  return field.type === 'boolean' ? false : field.type === 'array' ? [] : undefined;
}

const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

function answerText(item: ElicitationItem): string {
  const { answer } = item;
  if (!answer) {
    return '';
  }
  if (answer.by === 'turn-cancelled') {
    return 'Withdrawn: the reply ended before an answer.';
  }
  if (answer.action === 'accept') {
    return item.request.mode === 'url'
      ? `You opened the link.${item.completed ? ' The agent reports it done.' : ''}`
      : `You sent: ${(answer.fields ?? []).join(', ') || 'an empty form'} (values not kept here).`;
  }
  return answer.action === 'decline' ? 'You declined.' : 'You cancelled.';
}

/** One field of the form. */
function Field({
  name,
  field,
  value,
  onChange,
}: {
  name: string;
  field: ElicitationField;
  value: ElicitationValue | undefined;
  onChange: (value: ElicitationValue | undefined) => void;
}) {
  const id = useId();
  const label = field.title ?? name;
  const choices = fieldChoices(field);
  const description = field.description ? <small className="muted">{field.description}</small> : null;
  if (field.type === 'boolean') {
    return (
      <Tick className="elicitation-field elicitation-check" checked={value === true} onChange={onChange}>
        {label} {description}
      </Tick>
    );
  }
  if (field.type === 'array' && choices) {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="elicitation-field">
        <legend>{label}</legend>
        {choices.map((choice) => (
          <Tick
            key={choice.value}
            className="elicitation-check"
            checked={chosen.includes(choice.value)}
            onChange={(checked) => onChange(checked ? [...chosen, choice.value] : chosen.filter((item) => item !== choice.value))}
          >
            {choice.label}
          </Tick>
        ))}
        {description}
      </fieldset>
    );
  }
  if (choices) {
    return (
      <label className="elicitation-field" htmlFor={id}>
        {label}
        <select id={id} value={typeof value === 'string' ? value : ''} onChange={(event) => onChange(event.target.value || undefined)}>
          <option value="">Choose…</option>
          {choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
        {description}
      </label>
    );
  }
  const numeric = field.type === 'number' || field.type === 'integer';
  return (
    <label className="elicitation-field" htmlFor={id}>
      {label}
      <input
        id={id}
        type={numeric ? 'number' : (INPUT_TYPES[field.format ?? ''] ?? 'text')}
        step={field.type === 'integer' ? 1 : 'any'}
        value={value === undefined ? '' : String(value)}
        onChange={(event) => onChange(event.target.value === '' ? undefined : numeric ? Number(event.target.value) : event.target.value)}
      />
      {description}
    </label>
  );
}

/** The request, its form or link, and later how it was answered. */
export function ElicitationPrompt({ item }: { item: ElicitationItem }) {
  const answerElicitation = useBaton((state) => state.answerElicitation);
  const scoped = useScopedConversation();
  const { request } = item;
  const properties = request.schema?.properties ?? {};
  const [values, setValues] = useState<Record<string, ElicitationValue | undefined>>(() =>
    Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, initialValue(field)])),
  );
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const send = async (action: 'accept' | 'decline' | 'cancel', content?: Record<string, ElicitationValue>): Promise<void> => {
    setBusy(true);
    await answerElicitation(request.requestId, action, content, scoped);
    setBusy(false);
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const content = Object.fromEntries(
      Object.entries(values).filter((entry): entry is [string, ElicitationValue] => entry[1] !== undefined),
    );
    const found = checkElicitationAnswer(request.schema, content);
    setProblems(found);
    if (found.length === 0) {
      void send('accept', content);
    }
  };

  return (
    <div className="elicitation" role="group" aria-label={`Input requested: ${request.message}`}>
      <p className="elicitation-title">{request.message}</p>
      {item.answer ? (
        <p className="elicitation-answer">{answerText(item)}</p>
      ) : request.mode === 'url' ? (
        <div className="elicitation-actions">
          <p>
            The agent asks you to open <code>{request.url}</code> (on <strong>{request.url ? new URL(request.url).host : ''}</strong>).
          </p>
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              window.open(request.url, '_blank', 'noopener,noreferrer');
              void send('accept');
            }}
          >
            Open link
          </button>
          <button type="button" disabled={busy} onClick={() => void send('decline')}>
            Decline
          </button>
        </div>
      ) : (
        <form onSubmit={submit} noValidate>
          {formIsShowable(request.schema) ? (
            Object.entries(properties).map(([name, field]) => (
              <Field
                key={name}
                name={name}
                field={field}
                value={values[name]}
                onChange={(value) => setValues((current) => ({ ...current, [name]: value }))}
              />
            ))
          ) : (
            <p>This form has fields Baton cannot show; you can decline it.</p>
          )}
          {problems.length > 0 ? (
            <ul className="elicitation-problems" role="alert">
              {problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          ) : null}
          <p className="muted">What you enter goes to the agent; Baton does not keep it in the transcript.</p>
          <div className="elicitation-actions">
            <button type="submit" disabled={busy || !formIsShowable(request.schema)}>
              Send
            </button>
            <button type="button" disabled={busy} onClick={() => void send('decline')}>
              Decline
            </button>
            <button type="button" disabled={busy} onClick={() => void send('cancel')}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
