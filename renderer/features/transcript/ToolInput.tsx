/**
 * What a tool will be given, shown before the person answers its permission question: the command
 * for a terminal, otherwise its arguments as a table (nested values as JSON), long values folded.
 */

/** Values longer than this are folded under "Show all". */
const LONG = 400;

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

function Value({ text }: { text: string }) {
  if (text.length <= LONG && !text.includes('\n')) {
    return <code>{text}</code>;
  }
  return (
    <details>
      <summary>
        <code>{text.slice(0, 80).split('\n')[0]}…</code> ({text.length} characters)
      </summary>
      <pre>{text}</pre>
    </details>
  );
}

/** The tool's input, or nothing when the agent gave none. */
export function ToolInput({ input, toolKind }: { input: unknown; toolKind: string | undefined }) {
  if (input === undefined || input === null) {
    return null;
  }
  const fields = typeof input === 'object' && !Array.isArray(input) ? Object.entries(input as Record<string, unknown>) : null;
  const command = fields?.find(([name]) => name === 'command' || name === 'cmd')?.[1];
  if ((toolKind === 'execute' || command !== undefined) && command !== undefined) {
    const line = Array.isArray(command) ? command.map(String).join(' ') : asText(command);
    const others = fields!.filter(([name]) => name !== 'command' && name !== 'cmd');
    return (
      <div className="tool-input">
        <pre className="tool-command" aria-label="Command">
          $ {line}
        </pre>
        {others.length > 0 ? <InputTable fields={others} /> : null}
      </div>
    );
  }
  if (fields) {
    return fields.length === 0 ? <p className="tool-input muted">No arguments.</p> : <InputTable fields={fields} />;
  }
  return (
    <div className="tool-input">
      <Value text={asText(input)} />
    </div>
  );
}

function InputTable({ fields }: { fields: Array<[string, unknown]> }) {
  return (
    <details className="tool-input" open>
      <summary>Input</summary>
      <table aria-label="Tool input">
        <tbody>
          {fields.map(([name, value]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <Value text={asText(value)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
