/**
 * Combobox "Agent": every agent Baton offers (its built-ins, the ACP Registry's agents, custom
 * ones), searchable by name, description and registry id, each with its icon, its version, what
 * it is, and whether Baton's own tests cover it ("Tested with Baton"). Typing filters the list;
 * the arrow keys, Enter and Escape work as in any combobox (downshift's `useCombobox`). An agent
 * that is not installed can be picked when Baton can install it: its Install button follows.
 */
import { useCombobox } from 'downshift';
import { useMemo, useState } from 'react';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import { agentMatches } from '../../../app/agents/agentSearch.js';
import { AgentIcon } from './AgentIcon.js';
import { keepTyped } from '../../components/SearchablePicker.js';

/** What a picker entry says of the agent's state, if anything. */
function stateOf(agent: AgentInfo): string | undefined {
  if (agent.available) {
    return undefined;
  }
  if (agent.managed) {
    return 'not installed';
  }
  return agent.registry?.distribution === 'uvx' ? 'needs uv' : 'unavailable';
}

/** Whether an agent can be picked: it runs, or Baton can install it. */
function pickable(agent: AgentInfo): boolean {
  return agent.available || agent.managed !== undefined;
}

/** The picker. */
export function AgentPicker({
  agents,
  value,
  onChange,
  disabled,
  title,
  label = 'Agent',
  extra,
  elsewhere = false,
}: {
  agents: readonly AgentInfo[];
  value: string;
  onChange: (agentId: string) => void;
  disabled?: boolean;
  title?: string;
  label?: string;
  extra?: { agentId: string; displayName: string };
  /** On another machine: whether an agent is installed is known there, not here, so any can be picked. */
  elsewhere?: boolean;
}) {
  const [query, setQuery] = useState<string | null>(null);
  const all = useMemo(
    () =>
      extra && !agents.some((agent) => agent.agentId === extra.agentId)
        ? [...agents, { ...extra, source: 'custom' as const, tested: false, command: '', available: false, usesTools: true }]
        : agents,
    [agents, extra],
  );
  const selected = all.find((agent) => agent.agentId === value) ?? null;
  const items = useMemo(
    () => (query === null || query === '' ? [...all] : all.filter((agent) => agentMatches(agent, query))),
    [all, query],
  );
  const { isOpen, getInputProps, getMenuProps, getItemProps, getToggleButtonProps, highlightedIndex } = useCombobox<AgentInfo>({
    items,
    selectedItem: selected,
    itemToString: (agent) => agent?.displayName ?? '',
    itemToKey: (agent) => agent?.agentId,
    isItemDisabled: (agent) => !(elsewhere || pickable(agent)),
    // What is typed highlights its first agent that can be picked, so Enter picks it (the only match, at once).
    stateReducer: (state, action) =>
      keepTyped(state, action) ??
      (action.type === useCombobox.stateChangeTypes.InputChange && action.changes.inputValue
        ? {
            ...action.changes,
            highlightedIndex: all.filter((agent) => agentMatches(agent, action.changes.inputValue ?? '')).findIndex(pickable),
          }
        : action.changes),
    onInputValueChange: ({ inputValue, type }) => {
      // Typing filters; opening, picking and leaving show the chosen agent's name again.
      setQuery(type === useCombobox.stateChangeTypes.InputChange ? inputValue : null);
    },
    onSelectedItemChange: ({ selectedItem }) => {
      if (selectedItem && selectedItem.agentId !== value) {
        onChange(selectedItem.agentId);
      }
    },
  });
  return (
    <div className="agent-picker">
      <div className="agent-picker-field">
        {selected ? <AgentIcon agent={selected} /> : null}
        <input
          {...getInputProps({
            'aria-label': label,
            disabled: disabled === true,
            ...(title ? { title } : {}),
            placeholder: 'Search agents',
          })}
          className="agent-picker-input"
        />
        <button
          type="button"
          className="agent-picker-toggle"
          {...getToggleButtonProps({ disabled: disabled === true, 'aria-label': `All agents (${all.length})` })}
          tabIndex={-1}
        >
          ▾
        </button>
      </div>
      <ul {...getMenuProps()} className={isOpen ? 'agent-picker-menu open' : 'agent-picker-menu'}>
        {isOpen && items.length === 0 ? <li className="agent-picker-empty">No agent matches “{query}”.</li> : null}
        {isOpen
          ? items.map((agent, index) => {
              const state = stateOf(agent);
              const version = agent.version ?? agent.registry?.version;
              return (
                <li
                  key={agent.agentId}
                  {...getItemProps({ item: agent, index, 'aria-label': agent.displayName })}
                  className={[
                    'agent-option',
                    highlightedIndex === index ? 'highlighted' : '',
                    agent.agentId === value ? 'selected' : '',
                    elsewhere || pickable(agent) ? '' : 'disabled',
                  ]
                    .filter(Boolean)
                    .join(' ')}
                >
                  <AgentIcon agent={agent} />
                  <span className="agent-option-text">
                    <span className="agent-option-name">
                      {agent.displayName}
                      {version ? <span className="muted"> {version}</span> : null}
                      {agent.tested ? (
                        <span className="badge tested">Tested with Baton</span>
                      ) : agent.source === 'registry' ? (
                        <span className="badge registry">ACP Registry</span>
                      ) : null}
                      {state ? <span className="badge state">{state}</span> : null}
                    </span>
                    {agent.description ? <span className="agent-option-description">{agent.description}</span> : null}
                  </span>
                </li>
              );
            })
          : null}
      </ul>
    </div>
  );
}
