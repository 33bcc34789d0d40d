import { SearchList } from './search-list';

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
