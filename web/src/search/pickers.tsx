import { SearchList } from './lazy-search-list';

interface Picked {
  id: number;
  slug: string;
  name: string;
}

/** A search field listing the campaign's arcs that match; choosing one calls onPick. */
export function ArcPicker({ campaignSlug, label, onPick, exclude }: { campaignSlug: string; label: string; onPick: (arc: Picked) => void; exclude?: number }) {
  return (
    <div className="picker-field">
      {/* The visible label; the field itself is named the same for assistive technology. */}
      <p className="picker-label" aria-hidden="true">
        {label}
      </p>
      <SearchList campaignSlug={campaignSlug} label={label} type="arc" exclude={(r) => r.id === exclude} onPick={onPick} />
    </div>
  );
}

/**
 * A search field listing the campaign's things whose name, alias or text matches what is typed
 * (the search route: nothing else is read, however many things there are); choosing one calls onPick.
 */
export function ThingPicker({ campaignSlug, label, onPick, exclude }: { campaignSlug: string; label: string; onPick: (thing: Picked) => void; exclude?: (id: number) => boolean }) {
  return (
    <div className="picker-field">
      <p className="picker-label" aria-hidden="true">
        {label}
      </p>
      <SearchList campaignSlug={campaignSlug} label={label} type="thing" exclude={(r) => exclude?.(r.id) ?? false} onPick={onPick} />
    </div>
  );
}
