import { useId, useState, type InputHTMLAttributes, type ReactNode } from 'react';

/** A labelled input with its error beside it (announced, and tied to the input for screen readers). */
export function Field({ label, error, hint, ...input }: { label: string; error?: string | undefined; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : hint ? `${id}-hint` : undefined} {...input} />
      {hint && !error && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** An error of a whole form or section, read out when it appears. */
export function ErrorMessage({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="error" role="alert">
      {children}
    </p>
  );
}

/** A text field of a submitted form ('' when absent). */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}

/**
 * A record's name, saved as it is typed. A name cannot be empty: while the field is blank nothing is
 * sent and the field says so, rather than letting the save status claim the blank was saved.
 */
export function NameField({ defaultValue, onName, error, className }: { defaultValue: string; onName: (name: string) => void; error?: string | undefined; className?: string }) {
  const [blank, setBlank] = useState(false);
  return (
    <Field
      label="Name"
      defaultValue={defaultValue}
      onChange={(e) => {
        const isBlank = e.target.value.trim() === '';
        setBlank(isBlank);
        if (!isBlank) onName(e.target.value);
      }}
      error={blank ? `A name is needed: until it has one, it keeps the name “${defaultValue}”.` : error}
      className={className}
    />
  );
}
