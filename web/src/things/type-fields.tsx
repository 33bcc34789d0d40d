// A thing type's page gains two things (issue 25): the fields the type declares, edited as a list
// (name, kind, order) and saved with PUT …/thing-types/{id}; and a tag filter of its things (the
// list's `?tag=`, kept in the page's address).
import { useId, useState } from 'react';
import { messageOf } from '../api/client';
import { ErrorMessage } from '../ui/field';
import { useUpdateThingType } from './api';
import { useCampaignTags } from '../records/properties/api';
import { fieldsProblem, fold, KIND_LABELS, KINDS, move, removeAt, type Kind, type TypeField } from '../records/properties/model';

/**
 * The tags of the page's address (`?tag=…&tag=…`) as they are now. A change of the address reaches
 * the page's render a little later (the router's navigation is a transition): a second change made
 * meanwhile starts from the address, never from the tags an older render shows.
 */
export function tagsInAddress(): string[] {
  return new URLSearchParams(window.location.search).getAll('tag');
}

/** A filter by tags held in the page's address: `tags` is what the page shows; `onChange` hears the new list. */
export function TagFilter({ campaignSlug, tags, onChange }: { campaignSlug: string; tags: string[]; onChange: (next: string[]) => void }) {
  const all = useCampaignTags(campaignSlug);
  const id = useId().replace(/:/g, '');
  const chosen = new Set(tags.map(fold));
  const offered = (all.data ?? []).filter((t) => !chosen.has(fold(t.tag)));
  return (
    <div className="tag-filter">
      <div className="field">
        <label htmlFor={`${id}-tag`}>Only with the tag</label>
        <select
          id={`${id}-tag`}
          value=""
          onChange={(e) => {
            const current = tagsInAddress();
            if (e.target.value !== '' && !current.some((t) => fold(t) === fold(e.target.value))) onChange([...current, e.target.value]);
          }}
        >
          <option value="">{offered.length === 0 ? 'No other tags' : 'Choose a tag…'}</option>
          {offered.map((t) => (
            <option key={t.tag} value={t.tag}>
              {t.tag} ({t.things})
            </option>
          ))}
        </select>
      </div>
      {tags.length > 0 && (
        <ul className="chips" aria-label="Filtered by tags">
          {tags.map((tag) => (
            <li key={tag} className="chip">
              {tag}
              <button type="button" className="chip-remove" aria-label={`Stop filtering by ${tag}`} onClick={() => onChange(tagsInAddress().filter((t) => t !== tag))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The declared fields, edited locally and saved together: a new thing of the type starts with these keys, and their values must match their kinds. */
export function TypeFieldsEditor({ campaignSlug, typeId, fields }: { campaignSlug: string; typeId: number; fields: TypeField[] }) {
  const update = useUpdateThingType(campaignSlug, typeId);
  const id = useId().replace(/:/g, '');
  const [draft, setDraft] = useState<TypeField[]>(fields);
  // A draft's own problem (found before anything is sent), else the server's answer.
  const [problem, setProblem] = useState<string>();
  const changed = JSON.stringify(draft) !== JSON.stringify(fields);
  const focusLater = (selector: string) => setTimeout(() => document.querySelector<HTMLElement>(selector)?.focus());
  const save = () => {
    const found = fieldsProblem(draft);
    setProblem(found);
    if (found) return update.reset();
    // The failure is shown from the mutation's state.
    update.mutateAsync({ fields: draft.map((f) => ({ key: f.key.trim(), kind: f.kind })) }).catch(() => undefined);
  };
  const error = problem ?? (update.error ? messageOf(update.error) : undefined);
  return (
    <form
      className="type-fields-editor"
      aria-labelledby={`${id}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <h2 id={`${id}-title`}>Fields</h2>
      <p className="hint">Every thing of this type shows these as a form, in this order; a new one starts with them.</p>
      {draft.length === 0 && <p className="muted">No fields yet.</p>}
      <ol className="type-fields">
        {draft.map((field, i) => {
          const name = field.key.trim() || `field ${i + 1}`;
          return (
            <li key={i}>
              <label className="visually-hidden" htmlFor={`${id}-key-${i}`}>
                Field {i + 1}: name
              </label>
              <input id={`${id}-key-${i}`} value={field.key} placeholder="Species" onChange={(e) => setDraft(draft.map((f, j) => (j === i ? { ...f, key: e.target.value } : f)))} />
              <label className="visually-hidden" htmlFor={`${id}-kind-${i}`}>
                Field {i + 1}: kind
              </label>
              <select id={`${id}-kind-${i}`} value={field.kind} onChange={(e) => setDraft(draft.map((f, j) => (j === i ? { ...f, kind: e.target.value as Kind } : f)))}>
                {KINDS.map((k) => (
                  <option key={k} value={k}>
                    {KIND_LABELS[k]}
                  </option>
                ))}
              </select>
              <button
                type="button"
                id={`${id}-up-${i}`}
                aria-label={`Move ${name} up`}
                disabled={i === 0}
                onClick={() => {
                  setDraft(move(draft, i, -1));
                  focusLater(`#${id}-up-${i - 1}:not(:disabled), #${id}-down-${i - 1}`);
                }}
              >
                ↑
              </button>
              <button
                type="button"
                id={`${id}-down-${i}`}
                aria-label={`Move ${name} down`}
                disabled={i === draft.length - 1}
                onClick={() => {
                  setDraft(move(draft, i, 1));
                  focusLater(`#${id}-down-${i + 1}:not(:disabled), #${id}-up-${i + 1}`);
                }}
              >
                ↓
              </button>
              <button
                type="button"
                aria-label={`Remove ${name}`}
                onClick={() => {
                  setDraft(removeAt(draft, i));
                  focusLater(`#${id}-add`);
                }}
              >
                Remove
              </button>
            </li>
          );
        })}
      </ol>
      <div className="inline-form small">
        <button
          type="button"
          id={`${id}-add`}
          onClick={() => {
            setDraft([...draft, { key: '', kind: 'text' }]);
            focusLater(`#${id}-key-${draft.length}`);
          }}
        >
          Add field
        </button>
        <button type="submit" className="primary" disabled={!changed || update.isPending}>
          Save fields
        </button>
        {changed && (
          <button type="button" onClick={() => setDraft(fields)}>
            Undo changes
          </button>
        )}
      </div>
      <ErrorMessage>{error}</ErrorMessage>
    </form>
  );
}
