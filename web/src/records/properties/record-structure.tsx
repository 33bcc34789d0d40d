// A thing's or an arc's tags, aliases and properties on its page, bound to the record's one editing
// state: every change is an unsent edit like typed text (kept in the browser, saved with If-Match,
// shown in a conflict), and the fields remount only when the page takes a newer version.
import type { Problem } from '../../api/client';
import { EDITING_ATTRIBUTE } from '../use-record';
import { AliasesEditor, LabelsView, TagsEditor } from './labels-editor';
import type { Property, TypeField } from './model';
import { Rendered } from '../../ui/rendered';
import { PropertiesPanel } from './properties-panel';

export type StructurePatch = {
  properties: Property[];
  tags: string[];
  aliases: string[];
};

interface Edited {
  value: (field: keyof StructurePatch) => unknown;
  update: (patch: Partial<StructurePatch>) => void;
  generation: number;
  problem: Problem | undefined;
}

const list = <T,>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Tags and aliases, in the panel by the record's title. */
export function LabelsFields({ campaignSlug, edited }: { campaignSlug: string; edited: Edited }) {
  return (
    <div className="labels-fields" {...{ [EDITING_ATTRIBUTE]: '' }}>
      <TagsEditor campaignSlug={campaignSlug} labels={list<string>(edited.value('tags'))} onChange={(tags) => edited.update({ tags })} />
      <AliasesEditor labels={list<string>(edited.value('aliases'))} onChange={(aliases) => edited.update({ aliases })} />
    </div>
  );
}

export function PropertiesFields({ campaignSlug, edited, fields, self }: { campaignSlug: string; edited: Edited; fields: readonly TypeField[]; self: { type: 'thing' | 'arc'; id: number } }) {
  return (
    <div className="properties-fields" {...{ [EDITING_ATTRIBUTE]: '' }}>
      <PropertiesPanel
        campaignSlug={campaignSlug}
        properties={list<Property>(edited.value('properties'))}
        fields={fields}
        onChange={(properties) => edited.update({ properties })}
        generation={edited.generation}
        self={self}
        problem={edited.problem}
      />
    </div>
  );
}

/**
 * The read-only record (a player, or the player view): its tags and aliases, and its properties as
 * the server renders them for the caller (GM-only ones and links to hidden records already left
 * out; links with their target's current name), so reading a record never needs the list of every thing.
 */
export function StructureView({ record, renderedProperties }: { record: StructurePatch; renderedProperties: string | undefined }) {
  return (
    <>
      <LabelsView tags={record.tags} aliases={record.aliases} />
      {renderedProperties !== undefined && renderedProperties !== '' && (
        <section aria-labelledby="properties-heading">
          <h2 id="properties-heading">Properties</h2>
          <Rendered html={renderedProperties} label="Properties" />
        </section>
      )}
    </>
  );
}

/** What a game master's print shows instead of the editing panels: the record's properties and labels as the server renders them. */
export function PrintedStructure({ record, renderedProperties }: { record: StructurePatch; renderedProperties: string | undefined }) {
  return (
    <div className="print-only">
      <StructureView record={record} renderedProperties={renderedProperties} />
    </div>
  );
}
