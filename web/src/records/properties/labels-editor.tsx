// Tags and aliases of a thing or an arc as chips: each with a remove button named for it, a field
// that adds what is typed on Enter (or a comma, for tags), Backspace in the empty field removing
// the last one, and for tags the campaign's tags offered as they are typed (GET …/tags).
import { useId, useState } from 'react';
import { useCampaignTags } from './api';
import { usePageDrawn } from '../../ui/page-drawn';
import { addLabel, ALIAS_MAX_LENGTH, ALIASES_MAX, suggestTags, TAG_MAX_LENGTH, TAGS_MAX } from './model';

interface EditorProps {
  labels: string[];
  onChange: (next: string[]) => void;
}

export function TagsEditor({ campaignSlug, labels, onChange }: EditorProps & { campaignSlug: string }) {
  // The suggestions: asked for once the page's text is drawn (ui/page-drawn.ts).
  const tags = useCampaignTags(campaignSlug, usePageDrawn());
  return (
    <ChipEditor
      what="tag"
      title="Tags"
      labels={labels}
      onChange={onChange}
      rules={{ max: TAGS_MAX, maxLength: TAG_MAX_LENGTH, what: 'tag' }}
      separators={[',', 'Enter']}
      suggest={(typed) => suggestTags((tags.data ?? []).map((t) => t.tag), typed, labels, 20)}
    />
  );
}

export function AliasesEditor({ labels, onChange }: EditorProps) {
  return <ChipEditor what="alias" title="Also known as" labels={labels} onChange={onChange} rules={{ max: ALIASES_MAX, maxLength: ALIAS_MAX_LENGTH, what: 'alias' }} separators={['Enter']} />;
}

function ChipEditor({
  what,
  title,
  labels,
  onChange,
  rules,
  separators,
  suggest,
}: EditorProps & { what: string; title: string; rules: { max: number; maxLength: number; what: string }; separators: string[]; suggest?: (typed: string) => string[] }) {
  const id = useId().replace(/:/g, '');
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const add = (label: string) => {
    const result = addLabel(labels, label, rules);
    setProblem(result.problem);
    if (result.labels.length !== labels.length) onChange(result.labels);
    if (!result.problem) setText('');
  };
  const remove = (index: number) => {
    onChange(labels.filter((_, i) => i !== index));
    document.getElementById(`${id}-input`)?.focus();
  };
  const suggestions = suggest?.(text) ?? [];
  return (
    <div className="chip-editor" role="group" aria-labelledby={`${id}-title`}>
      <span id={`${id}-title`} className="chip-title">
        {title}
      </span>
      <ul className="chips" aria-label={title}>
        {labels.map((label, i) => (
          <li key={label} className="chip">
            {label}
            <button type="button" className="chip-remove" aria-label={`Remove ${what} ${label}`} onClick={() => remove(i)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <label htmlFor={`${id}-input`} className="visually-hidden">
        Add {what === 'alias' ? 'an alias' : `a ${what}`}
      </label>
      <input
        id={`${id}-input`}
        className="chip-input"
        value={text}
        list={suggest ? `${id}-suggestions` : undefined}
        placeholder={what === 'alias' ? 'Add an alias' : `Add a ${what}`}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
        onChange={(e) => {
          setProblem(undefined);
          // A picked suggestion (or a pasted list) may hold the separator: each part is a label.
          const value = e.target.value;
          if (separators.includes(',') && value.includes(',')) {
            const parts = value.split(',');
            let next = labels;
            for (const part of parts.slice(0, -1)) next = addLabel(next, part, rules).labels;
            if (next.length !== labels.length) onChange(next);
            setText(parts.at(-1) ?? '');
          } else setText(value);
        }}
        onKeyDown={(e) => {
          if (separators.includes(e.key) && text.trim() !== '') {
            e.preventDefault();
            add(text);
          } else if (e.key === 'Backspace' && text === '' && labels.length > 0) {
            e.preventDefault();
            onChange(labels.slice(0, -1));
          }
        }}
        onBlur={() => {
          if (text.trim() !== '') add(text);
        }}
      />
      {suggest && (
        <datalist id={`${id}-suggestions`}>
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
      {problem && (
        <p className="error" id={`${id}-error`} role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

/** Tags and aliases as a reader sees them. */
export function LabelsView({ tags, aliases }: { tags: string[]; aliases: string[] }) {
  if (tags.length === 0 && aliases.length === 0) return null;
  return (
    <div className="labels-view">
      {aliases.length > 0 && <p className="muted">Also known as {aliases.join(', ')}</p>}
      {tags.length > 0 && (
        <ul className="chips" aria-label="Tags">
          {tags.map((tag) => (
            <li key={tag} className="chip">
              {tag}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
