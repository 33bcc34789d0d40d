// The properties of a thing or an arc on its page: the fields its type declares as a form (in the
// type's order, each with the control of its kind), then the other properties (kind, value, GM-only,
// move up/down, remove) and a form to add one. Every change goes to the record's editing state
// (records/record-state.ts): kept in the browser at once and saved with If-Match like the text.
// Text fields are uncontrolled (what is being typed is never replaced under the caret), and a
// number that does not read as one yet is not sent: the field says so instead.
import { useEffect, useId, useReducer, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { Problem } from '../../api/client';
import { SearchList } from '../../search/lazy-search-list';
import {
  addProperty,
  convert,
  fitsKind,
  fold,
  isLink,
  keyProblem,
  KIND_LABELS,
  kindOf,
  KINDS,
  parseInput,
  moveAmong,
  removeAt,
  replaceAt,
  scalarText,
  setDeclared,
  splitByFields,
  type DeclaredRow,
  type Kind,
  type Property,
  type PropertyLink,
  type PropertyScalar,
  type PropertyValue,
  type TypeField,
} from './model';
import { useLinkNames, type LinkNames, type LinkTarget } from './names';

interface PanelProps {
  campaignSlug: string;
  properties: Property[];
  /** The fields the thing's type declares (none for an arc). */
  fields: readonly TypeField[];
  onChange: (next: Property[]) => void;
  /** Changes when the page takes a newer version: the fields start again from it. */
  generation: number;
  /** The record itself, which a link may not be picked to. */
  self: { type: 'thing' | 'arc'; id: number };
  /** The last save's problem, whose pointers into `properties` are shown at their rows. */
  problem: Problem | undefined;
}

const valueId = (prefix: string, key: string) => `${prefix}-value-${encodeURIComponent(fold(key)).replace(/%/g, '_')}`;

export function PropertiesPanel({ campaignSlug, properties, fields, onChange, generation, self, problem }: PanelProps) {
  const prefix = useId().replace(/:/g, '');
  const { name, learn } = useLinkNames(campaignSlug, properties);
  // The kind a user chose for a property that is still empty (an empty value tells no kind).
  const [chosen, setChosen] = useState<ReadonlyMap<string, Kind>>(new Map());
  // Where the focus goes once the change is shown (the render a request brings about, with the
  // change it goes with): the first of these elements that is there and enabled.
  const focusRequest = useRef<() => (HTMLElement | null | undefined)[]>(undefined);
  const [focusRequests, countFocusRequest] = useReducer((n: number) => n + 1, 0);
  const setFocus = (targets: () => (HTMLElement | null | undefined)[]) => {
    focusRequest.current = targets;
    countFocusRequest();
  };
  const root = useRef<HTMLElement>(null);
  useEffect(() => {
    const targets = focusRequest.current;
    focusRequest.current = undefined;
    targets?.()
      .find((element) => element && !(element as HTMLButtonElement).disabled)
      ?.focus();
  }, [focusRequests]);
  /** An element of the panel whose data attribute `name` is `value` (no selector escaping needed). */
  const withData = (name: string, value: string, extra?: (element: HTMLElement) => boolean) =>
    [...(root.current?.querySelectorAll<HTMLElement>(`[data-${name}]`) ?? [])].find((element) => element.getAttribute(`data-${name}`) === value && (extra?.(element) ?? true));
  const { declared, others } = splitByFields(properties, fields);
  const problems = rowProblems(problem);
  const remember = (key: string, kind: Kind) => setChosen((old) => new Map(old).set(fold(key), kind));

  const moveOther = (position: number, by: -1 | 1) => {
    const from = others[position]!;
    if (!others[position + by]) return;
    onChange(moveAmong(properties, others.map((o) => o.index), position, by));
    const key = fold(from.property.key);
    setFocus(() => [withData('move', key, (e) => e.dataset.by === String(by)), withData('move', key, (e) => e.dataset.by === String(-by))]);
  };

  return (
    <section aria-labelledby={`${prefix}-heading`} className="properties-panel" ref={root}>
      <h2 id={`${prefix}-heading`}>Properties</h2>
      {declared.length > 0 && (
        <div className="declared-fields" role="group" aria-label="Fields of the type">
          {declared.map((row) => (
            <DeclaredField
              key={`${generation}-${fold(row.field.key)}`}
              row={row}
              id={valueId(prefix, row.field.key)}
              campaignSlug={campaignSlug}
              names={name}
              learn={learn}
              self={self}
              problem={row.index >= 0 ? problems.get(row.index) : undefined}
              onValue={(value) => onChange(setDeclared(properties, row, value))}
              onGmOnly={(gmOnly) => onChange(replaceAt(properties, row.index, { gmOnly }))}
            />
          ))}
        </div>
      )}
      {others.length === 0 && declared.length === 0 && <p className="muted">No properties yet.</p>}
      {others.length > 0 && (
        <ul className="property-list" aria-label={declared.length > 0 ? 'Other properties' : 'Properties'}>
          {others.map(({ index, property }, position) => {
            const kind = kindOf(property.value, chosen.get(fold(property.key)));
            const key = fold(property.key);
            return (
              <li key={`${generation}-${key}`} className={property.gmOnly ? 'property gm-only' : 'property'}>
                <div className="property-head">
                  <label htmlFor={valueId(prefix, property.key)} className="property-key">
                    {property.key}
                  </label>
                  {property.gmOnly && (
                    <span className="gm-badge" title="GM only: players never see this property">
                      GM only
                    </span>
                  )}
                  <span className="property-tools">
                    <label className="visually-hidden" htmlFor={`${valueId(prefix, property.key)}-kind`}>
                      Kind of {property.key}
                    </label>
                    <select
                      id={`${valueId(prefix, property.key)}-kind`}
                      value={kind}
                      onChange={(e) => {
                        const next = e.target.value as Kind;
                        remember(property.key, next);
                        onChange(replaceAt(properties, index, { value: convert(property.value, next) }));
                      }}
                    >
                      {KINDS.map((k) => (
                        <option key={k} value={k}>
                          {KIND_LABELS[k]}
                        </option>
                      ))}
                    </select>
                    <GmOnlyToggle propertyKey={property.key} checked={property.gmOnly} onChange={(gmOnly) => onChange(replaceAt(properties, index, { gmOnly }))} />
                    <button type="button" data-move={key} data-by={-1} aria-label={`Move ${property.key} up`} disabled={position === 0} onClick={() => moveOther(position, -1)}>
                      ↑
                    </button>
                    <button type="button" data-move={key} data-by={1} aria-label={`Move ${property.key} down`} disabled={position === others.length - 1} onClick={() => moveOther(position, 1)}>
                      ↓
                    </button>
                    <button
                      type="button"
                      aria-label={`Remove ${property.key}`}
                      onClick={() => {
                        onChange(removeAt(properties, index));
                        setFocus(() => [document.getElementById(`${prefix}-new-key`)]);
                      }}
                    >
                      Remove
                    </button>
                  </span>
                </div>
                <ValueControl
                  key={kind}
                  kind={kind}
                  value={property.value}
                  propertyKey={property.key}
                  id={valueId(prefix, property.key)}
                  campaignSlug={campaignSlug}
                  names={name}
                  learn={learn}
                  self={self}
                  onValue={(value) => onChange(replaceAt(properties, index, { value }))}
                />
                <RowProblem message={problems.get(index)} />
              </li>
            );
          })}
        </ul>
      )}
      <NewProperty
        id={`${prefix}-new-key`}
        properties={properties}
        onAdd={(key, kind) => {
          remember(key, kind);
          onChange(addProperty(properties, key, kind));
          setFocus(() => [withData('value-of', fold(key.trim()))?.querySelector<HTMLElement>('input, select, button, textarea')]);
        }}
      />
      {problems.get(-1) && <p className="error" role="alert">{problems.get(-1)}</p>}
    </section>
  );
}

/** The server's messages about properties, by the row they point at (-1: the list as a whole). */
function rowProblems(problem: Problem | undefined): Map<number, string> {
  const byRow = new Map<number, string>();
  for (const e of problem?.errors ?? []) {
    const match = /\/properties(?:\/(\d+))?(\/.*)?$/.exec(e.path);
    if (!match) continue;
    const row = match[1] === undefined ? -1 : Number(match[1]);
    byRow.set(row, [byRow.get(row), e.message].filter(Boolean).join('; '));
  }
  return byRow;
}

function RowProblem({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p className="error" role="alert">
      Not saved: {message}
    </p>
  );
}

function GmOnlyToggle({ propertyKey, checked, onChange }: { propertyKey: string; checked: boolean; onChange: (gmOnly: boolean) => void }) {
  return (
    <label className="gm-toggle">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} /> GM only<span className="visually-hidden"> ({propertyKey})</span>
    </label>
  );
}

function DeclaredField({
  row,
  id,
  campaignSlug,
  names,
  learn,
  self,
  problem,
  onValue,
  onGmOnly,
}: {
  row: DeclaredRow;
  id: string;
  campaignSlug: string;
  names: LinkNames;
  learn: (link: PropertyLink, target: LinkTarget) => void;
  self: PanelProps['self'];
  problem: string | undefined;
  onValue: (value: PropertyValue) => void;
  onGmOnly: (gmOnly: boolean) => void;
}) {
  const value = row.property?.value ?? null;
  const fits = fitsKind(value, row.field.kind);
  return (
    <div className={row.property?.gmOnly ? 'property declared gm-only' : 'property declared'}>
      <div className="property-head">
        <label htmlFor={id} className="property-key">
          {row.field.key}
        </label>
        <span className="muted kind-note">{KIND_LABELS[row.field.kind]}</span>
        {row.property?.gmOnly && (
          <span className="gm-badge" title="GM only: players never see this property">
            GM only
          </span>
        )}
        {row.property && (
          <span className="property-tools">
            <GmOnlyToggle propertyKey={row.field.key} checked={row.property.gmOnly} onChange={onGmOnly} />
          </span>
        )}
      </div>
      {!fits && <p className="hint">It holds “{scalarText(Array.isArray(value) ? null : value)}”, which is not a {KIND_LABELS[row.field.kind].toLowerCase()}; a new value replaces it.</p>}
      <ValueControl kind={row.field.kind} value={fits ? value : null} propertyKey={row.field.key} id={id} campaignSlug={campaignSlug} names={names} learn={learn} self={self} onValue={onValue} />
      <RowProblem message={problem} />
    </div>
  );
}

/** The control of a value of one kind; `id` is the one its visible label names. */
function ValueControl({
  kind,
  value,
  propertyKey,
  id,
  campaignSlug,
  names,
  learn,
  self,
  onValue,
}: {
  kind: Kind;
  value: PropertyValue;
  propertyKey: string;
  id: string;
  campaignSlug: string;
  names: LinkNames;
  learn: (link: PropertyLink, target: LinkTarget) => void;
  self: PanelProps['self'];
  onValue: (value: PropertyValue) => void;
}) {
  const [error, setError] = useState<string>();
  const scalar: PropertyScalar = Array.isArray(value) ? null : value;
  let control: ReactNode;
  const typed = (text: string) => {
    const parsed = parseInput(kind, text);
    if (!parsed.ok) return setError(`${propertyKey} ${parsed.message}: not saved until it is one.`);
    setError(undefined);
    onValue(parsed.value);
  };
  switch (kind) {
    case 'text':
      control = <input id={id} type="text" defaultValue={scalarText(scalar)} onChange={(e) => typed(e.target.value)} aria-invalid={error ? true : undefined} />;
      break;
    case 'number':
      control = <input id={id} type="text" inputMode="decimal" defaultValue={scalarText(scalar)} onChange={(e) => typed(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />;
      break;
    case 'date':
      control = <input id={id} type="date" defaultValue={typeof scalar === 'string' ? scalar.slice(0, 10) : ''} onChange={(e) => typed(e.target.value)} aria-invalid={error ? true : undefined} />;
      break;
    case 'boolean':
      control = <input id={id} type="checkbox" className="property-checkbox" defaultChecked={scalar === true} onChange={(e) => onValue(e.target.checked)} />;
      break;
    case 'link':
      control = <LinkControl id={id} value={isLink(scalar) ? scalar : null} propertyKey={propertyKey} campaignSlug={campaignSlug} names={names} learn={learn} self={self} onValue={onValue} />;
      break;
    case 'list':
      control = <ListControl id={id} items={Array.isArray(value) ? value : []} propertyKey={propertyKey} campaignSlug={campaignSlug} names={names} learn={learn} self={self} onValue={onValue} />;
      break;
  }
  return (
    <div className="property-value" data-value-of={fold(propertyKey)}>
      {control}
      {error && (
        <p className="error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function TargetLink({ link, names }: { link: PropertyLink; names: LinkNames }) {
  const target = names(link);
  if (target === undefined) return <span className="muted">…</span>;
  if (target === null) return <span className="muted">a {link.targetType} you cannot see or that is gone</span>;
  return (
    <>
      <Link to={target.href}>{target.name}</Link> <span className="muted">({link.targetType})</span>
    </>
  );
}

/** What the two controls that pick records (a link, a list) take besides their value. */
interface PickingControlProps {
  id: string;
  propertyKey: string;
  campaignSlug: string;
  names: LinkNames;
  learn: (link: PropertyLink, target: LinkTarget) => void;
  self: PanelProps['self'];
  onValue: (value: PropertyValue) => void;
}

/** A link: the target's current name (a link to its page), and a record picker (the mention picker's search) to set or change it. */
function LinkControl({
  id,
  value,
  propertyKey,
  campaignSlug,
  names,
  learn,
  self,
  onValue,
}: {
  value: PropertyLink | null;
} & PickingControlProps) {
  const [picking, setPicking] = useState(value === null);
  const wrapper = useRef<HTMLDivElement>(null);
  if (value && !picking) {
    return (
      <div className="link-value" id={id} tabIndex={-1} ref={wrapper}>
        <TargetLink link={value} names={names} />{' '}
        <button type="button" aria-label={`Change ${propertyKey}`} onClick={() => setPicking(true)}>
          Change
        </button>{' '}
        <button type="button" aria-label={`Clear ${propertyKey}`} onClick={() => onValue(null)}>
          Clear
        </button>
      </div>
    );
  }
  return (
    <div className="link-picker" id={id}>
      <RecordPicker
        campaignSlug={campaignSlug}
        label={`${propertyKey}: a thing or an arc`}
        self={self}
        autoFocus={value !== null}
        onPick={(link, target) => {
          learn(link, target);
          setPicking(false);
          onValue(link);
        }}
      />
      {value && (
        <button type="button" onClick={() => setPicking(false)}>
          Keep {names(value)?.name ?? 'the current one'}
        </button>
      )}
    </div>
  );
}

function RecordPicker({ campaignSlug, label, self, autoFocus, onPick }: { campaignSlug: string; label: string; self: PanelProps['self']; autoFocus?: boolean; onPick: (link: PropertyLink, target: LinkTarget) => void }) {
  return (
    <SearchList
      campaignSlug={campaignSlug}
      label={label}
      autoFocus={autoFocus}
      exclude={(r) => r.type === 'campaign' || (r.type === self.type && r.id === self.id)}
      renderItem={(r) => (
        <>
          {r.name} <span className="muted">({r.type})</span>
        </>
      )}
      onPick={(r) => {
        const targetType = r.type as 'thing' | 'arc';
        onPick({ targetType, targetId: r.id }, { name: r.name, href: `/campaigns/${campaignSlug}/${targetType === 'thing' ? 'things' : 'arcs'}/${r.slug}` });
      }}
    />
  );
}

/** A list: its items (text, numbers, links by their target's name), each removable, and a field to add text or a link. */
function ListControl({
  id,
  items,
  propertyKey,
  campaignSlug,
  names,
  learn,
  self,
  onValue,
}: {
  items: PropertyScalar[];
} & PickingControlProps) {
  const [text, setText] = useState('');
  const [linking, setLinking] = useState(false);
  const itemName = (item: PropertyScalar) => scalarText(item, (link) => names(link)?.name ?? `a ${link.targetType}`);
  return (
    <div className="list-value">
      {items.length > 0 && (
        <ul className="chips" aria-label={`${propertyKey}: items`}>
          {items.map((item, i) => (
            <li key={`${i}-${JSON.stringify(item)}`} className="chip">
              {isLink(item) ? <TargetLink link={item} names={names} /> : itemName(item)}
              <button type="button" className="chip-remove" aria-label={`Remove ${itemName(item)} from ${propertyKey}`} onClick={() => onValue(removeAt(items, i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="inline-form small">
        <input
          id={id}
          type="text"
          value={text}
          placeholder="Add an item, then Enter"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              if (text.trim() !== '') onValue([...items, text.trim()]);
              setText('');
            } else if (e.key === 'Backspace' && text === '' && items.length > 0) {
              onValue(items.slice(0, -1));
            }
          }}
        />
        <button type="button" aria-expanded={linking} onClick={() => setLinking(!linking)}>
          {linking ? 'No link' : 'Add a link'}
        </button>
      </div>
      {linking && (
        <RecordPicker
          campaignSlug={campaignSlug}
          label={`${propertyKey}: add a thing or an arc`}
          self={self}
          autoFocus
          onPick={(link, target) => {
            learn(link, target);
            setLinking(false);
            onValue([...items, link]);
          }}
        />
      )}
    </div>
  );
}

function NewProperty({ id, properties, onAdd }: { id: string; properties: Property[]; onAdd: (key: string, kind: Kind) => void }) {
  const [key, setKey] = useState('');
  const [kind, setKind] = useState<Kind>('text');
  const [problem, setProblem] = useState<string>();
  return (
    <form
      className="inline-form small new-property"
      onSubmit={(e) => {
        e.preventDefault();
        const why = keyProblem(properties, key);
        setProblem(why);
        if (why) return;
        onAdd(key, kind);
        setKey('');
      }}
    >
      <div className="field">
        <label htmlFor={id}>New property</label>
        <input id={id} value={key} onChange={(e) => setKey(e.target.value)} placeholder="Species" aria-invalid={problem ? true : undefined} aria-describedby={problem ? `${id}-error` : undefined} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-kind`}>Kind</label>
        <select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Add property</button>
      {problem && (
        <p className="error" id={`${id}-error`} role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
