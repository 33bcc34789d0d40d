// The current name and address of the records link properties point to. A link holds only
// {targetType, targetId}: its name is read from the campaign's lists (the arcs the sidebar already
// holds; the things only when a record has a link to a thing), so a renamed target shows its new
// name, and records picked meanwhile are known at once.
import { useCallback, useMemo, useState } from 'react';
import { useArcs } from '../../arcs/api';
import { useAllThings } from '../../things/api';
import { isLink, type Property, type PropertyLink } from './model';

export interface LinkTarget {
  name: string;
  /** The record's page in the app. */
  href: string;
}

/** A link's target; null when it is known not to be there for the caller (hidden or gone), undefined while the names load. */
export type LinkNames = (link: PropertyLink) => LinkTarget | null | undefined;

const id = (link: PropertyLink) => `${link.targetType}-${link.targetId}`;

/** Whether some property of the list links to a thing (a value or a list item). */
export function linksToThings(properties: readonly Property[]): boolean {
  return properties.some((p) => (Array.isArray(p.value) ? p.value : [p.value]).some((v) => isLink(v) && v.targetType === 'thing'));
}

export function useLinkNames(campaignSlug: string, properties: readonly Property[]): { name: LinkNames; learn: (link: PropertyLink, target: LinkTarget) => void } {
  const needThings = linksToThings(properties);
  const things = useAllThings(campaignSlug, needThings);
  const arcs = useArcs(campaignSlug);
  const [learned, setLearned] = useState<ReadonlyMap<string, LinkTarget>>(new Map());
  const known = useMemo(() => {
    const names = new Map(learned);
    for (const t of things.data ?? []) names.set(`thing-${t.id}`, { name: t.name, href: `/campaigns/${campaignSlug}/things/${t.slug}` });
    for (const a of arcs.data ?? []) names.set(`arc-${a.id}`, { name: a.name, href: `/campaigns/${campaignSlug}/arcs/${a.slug}` });
    return names;
  }, [learned, things.data, arcs.data, campaignSlug]);
  const loaded = arcs.isSuccess && (!needThings || things.isSuccess);
  const name = useCallback<LinkNames>((link) => known.get(id(link)) ?? (loaded ? null : undefined), [known, loaded]);
  const learn = useCallback((link: PropertyLink, target: LinkTarget) => setLearned((old) => new Map(old).set(id(link), target)), []);
  return { name, learn };
}
