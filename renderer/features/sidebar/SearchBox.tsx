/** The search box, with agent and date filters while a search is on. Escape clears it. */
import { useBaton } from '../../store/index.js';

/** Search and its filters. */
export function SearchBox() {
  const search = useBaton((state) => state.search);
  const agents = useBaton((state) => state.agents);
  const setSearch = useBaton((state) => state.setSearch);
  const clearSearch = useBaton((state) => state.clearSearch);
  const active = search.text.trim() !== '';
  return (
    <div className="search">
      <input
        type="search"
        aria-label="Search conversations"
        placeholder="Search conversations"
        value={search.text}
        onChange={(event) => setSearch({ text: event.target.value })}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            clearSearch();
          }
        }}
      />
      {active ? (
        <div className="search-filters">
          <select aria-label="Filter by agent" value={search.agentId} onChange={(event) => setSearch({ agentId: event.target.value })}>
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent.agentId} value={agent.agentId}>
                {agent.displayName}
              </option>
            ))}
          </select>
          <label>
            From{' '}
            <input type="date" aria-label="From date" value={search.from} onChange={(event) => setSearch({ from: event.target.value })} />
          </label>
          <label>
            To <input type="date" aria-label="To date" value={search.to} onChange={(event) => setSearch({ to: event.target.value })} />
          </label>
        </div>
      ) : null}
    </div>
  );
}
