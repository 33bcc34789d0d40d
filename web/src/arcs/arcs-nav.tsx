// The sidebar's arcs as a tree (parents and children), from the arcs list without their things.
import { useState } from 'react';
import { NavLink } from 'react-router';
import { messageOf } from '../api/client';
import { ErrorMessage } from '../ui/field';
import { GmOnlyBadge } from '../campaigns/access';
import { useArcs, type ArcWithoutThings } from './api';

export function ArcsNav({ slug }: { slug: string }) {
  const arcs = useArcs(slug);
  const children = new Map<number | null, ArcWithoutThings[]>();
  for (const arc of arcs.data ?? []) {
    const list = children.get(arc.parentArcId) ?? [];
    list.push(arc);
    children.set(arc.parentArcId, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
  return (
    <nav aria-label="Arcs">
      <h2>Arcs</h2>
      {arcs.error && <ErrorMessage>{messageOf(arcs.error)}</ErrorMessage>}
      <ArcTree slug={slug} parent={null} childrenOf={children} />
    </nav>
  );
}

function ArcTree({ slug, parent, childrenOf }: { slug: string; parent: number | null; childrenOf: Map<number | null, ArcWithoutThings[]> }) {
  const [collapsed, setCollapsed] = useState<Record<number, boolean>>({});
  const arcs = childrenOf.get(parent) ?? [];
  if (arcs.length === 0) return null;
  return (
    <ul className="tree">
      {arcs.map((arc) => {
        const hasChildren = (childrenOf.get(arc.id)?.length ?? 0) > 0;
        const isCollapsed = collapsed[arc.id] ?? false;
        return (
          <li key={arc.id}>
            <div className="tree-row">
              {hasChildren ? (
                <button type="button" className="disclosure" aria-expanded={!isCollapsed} aria-label={`${isCollapsed ? 'Show' : 'Hide'} arcs under ${arc.name}`} onClick={() => setCollapsed({ ...collapsed, [arc.id]: !isCollapsed })}>
                  {isCollapsed ? '▸' : '▾'}
                </button>
              ) : (
                <span className="disclosure-space" />
              )}
              <NavLink to={`/campaigns/${slug}/arcs/${arc.slug}`}>{arc.name}</NavLink> <GmOnlyBadge visibility={arc.visibility} />
            </div>
            {hasChildren && !isCollapsed && <ArcTree slug={slug} parent={arc.id} childrenOf={childrenOf} />}
          </li>
        );
      })}
    </ul>
  );
}
