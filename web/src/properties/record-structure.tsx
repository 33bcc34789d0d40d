// A thing's or an arc's tags, aliases and properties on its page, bound to the record's one editing
// state: every change is an unsent edit like typed text (kept in the browser, saved with If-Match,
// shown in a conflict), and the fields remount only when the page takes a newer version.
import type { Problem } from '../api/client';
import { EDITING_ATTRIBUTE } from '../records/use-record';
import { AliasesEditor, LabelsView, TagsEditor } from './labels-editor';
import type { Property, TypeField } from './model';
import { PropertiesPanel, PropertiesView } from './properties-panel';

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

/** Tags and aliases, under the record's name. */
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
    <div {...{ [EDITING_ATTRIBUTE]: '' }}>
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

/** The read-only record (a player, or the player view): what the server sent, GM-only properties already left out. */
export function StructureView({ campaignSlug, record }: { campaignSlug: string; record: StructurePatch }) {
  return (
    <>
      <LabelsView tags={record.tags} aliases={record.aliases} />
      <PropertiesView campaignSlug={campaignSlug} properties={record.properties} />
    </>
  );
}
