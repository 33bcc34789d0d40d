import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeDecode, type Target } from '../../src/portability/vault/convert.js';
import { isMarkdownFile } from '../../src/portability/vault/layout.js';
import { Resolver, type ResolverWork } from '../../src/portability/vault/read.js';

// How a vault's links find their notes (src/portability/vault/read.ts, `Resolver`): the same answers
// as the rules read straight (a reference implementation below, the reader as it was first
// written), whatever the vault's layout; and the work of a link is a lookup, not a scan of the
// notes sharing its name (a hostile vault of 20,000 `x.md` and thousands of `[[x]]` links held the
// event loop for seconds).

/** The rules as the README states them, the simple way: filter every note of that name, sort them. */
class ReferenceResolver {
  private readonly byPath = new Map<string, Target>();
  private readonly byName = new Map<string, { path: string; target: Target }[]>();
  private readonly byAlias = new Map<string, { path: string; target: Target }[]>();

  add(vaultPath: string, target: Target): void {
    const key = vaultPath.normalize('NFC').toLowerCase();
    this.byPath.set(key, target);
    const bare = target.kind === 'image' ? key : key.replace(/\.md$/, '');
    const name = path.posix.basename(bare);
    this.byName.set(name, [...(this.byName.get(name) ?? []), { path: bare, target }]);
  }

  addAlias(alias: string, vaultPath: string, target: Target): void {
    const key = alias.normalize('NFC').toLowerCase();
    this.byAlias.set(key, [...(this.byAlias.get(key) ?? []), { path: vaultPath.normalize('NFC').toLowerCase().replace(/\.md$/, ''), target }]);
  }

  from(from: string): (reference: string) => Target | undefined {
    const folder = path.posix.dirname(from.normalize('NFC').toLowerCase());
    return (reference) => {
      const raw = reference.trim().replace(/\\+$/, '').trim().normalize('NFC');
      const decoded = safeDecode(raw).normalize('NFC');
      return this.find(raw.toLowerCase(), folder) ?? (decoded === raw ? undefined : this.find(decoded.toLowerCase(), folder));
    };
  }

  private exact(vaultPath: string): Target | undefined {
    if (vaultPath.startsWith('../') || vaultPath === '..') return undefined;
    return this.byPath.get(vaultPath) ?? (isMarkdownFile(vaultPath) ? undefined : this.byPath.get(`${vaultPath}.md`));
  }

  private find(reference: string, folder: string): Target | undefined {
    if (reference === '') return undefined;
    const relative = () => this.exact(path.posix.normalize(path.posix.join(folder, reference)));
    if (reference.startsWith('/')) return this.exact(path.posix.normalize(reference.replace(/^\/+/, '')));
    if (reference.startsWith('./') || reference.startsWith('../')) return relative();
    const found = relative() ?? this.exact(path.posix.normalize(reference));
    if (found) return found;
    const bare = reference.replace(/\.md$/, '');
    const ending = (this.byName.get(path.posix.basename(bare)) ?? []).filter((c) => c.path === bare || c.path.endsWith(`/${bare}`));
    return nearest(ending, folder) ?? nearest(this.byAlias.get(bare) ?? [], folder);
  }
}

function nearest(candidates: readonly { path: string; target: Target }[], folder: string): Target | undefined {
  const own = candidates.find((c) => path.posix.dirname(c.path) === folder);
  if (own) return own.target;
  const depth = (p: string) => p.split('/').length;
  return [...candidates].sort((a, b) => depth(a.path) - depth(b.path) || a.path.length - b.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))[0]?.target;
}

const thing = (key: number, name = 'x'): Target => ({ kind: 'thing', key, name });
const work = (): ResolverWork => ({ resolutions: 0, visits: 0 });

describe('links by name in a vault of many notes of that name', () => {
  it('are resolved once per reference and linking folder, the shared name read once', () => {
    const counted = work();
    const resolver = new Resolver(counted);
    for (let i = 0; i < 5000; i++) resolver.add(`F${i}/sub/x.md`, thing(i + 1));
    for (const from of ['Other/links.md', 'F42/sub/links.md', 'F7/links.md']) {
      const resolve = resolver.from(from);
      for (let i = 0; i < 2000; i++) resolve('x', true);
    }
    expect(resolver.from('Other/links.md')('x', true)).toMatchObject({ key: 1 }); // f0/sub/x: the shortest, then the first alphabetically
    expect(resolver.from('F42/sub/links.md')('x', true)).toMatchObject({ key: 43 }); // the one in the linking note's folder
    expect(resolver.from('F7/links.md')('X.md', true)).toMatchObject({ key: 1 });
    expect(counted.resolutions).toBe(4); // `x` from three folders, `x.md` from one
    expect(counted.visits).toBeLessThanOrEqual(5000); // the notes named `x` sorted out once, not per link
  });

  it('partial paths are found through their ends, not by checking every note of the name', () => {
    const counted = work();
    const resolver = new Resolver(counted);
    for (let i = 0; i < 5000; i++) resolver.add(`F${i}/sub/x.md`, thing(i + 1));
    const resolve = resolver.from('Other/links.md');
    for (let i = 0; i < 2000; i++) expect(resolve(`F${i}/sub/x`, true)).toMatchObject({ key: i + 1 });
    for (let i = 0; i < 2000; i++) expect(resolve(`G${i}/sub/x`, true)).toBeUndefined();
    expect(resolve('sub/x', true)).toMatchObject({ key: 1 });
    expect(counted.resolutions).toBe(4001);
    // Each note is looked at once per segment of its path at most (5,000 × 3), never once per link (2,000 × 5,000).
    expect(counted.visits).toBeLessThanOrEqual(3 * 5000);
  });

  it('an alias shared by many notes is read once, whichever folders link to it', () => {
    const counted = work();
    const resolver = new Resolver(counted);
    for (let i = 0; i < 3000; i++) {
      resolver.add(`F${i}/n${i}.md`, thing(i + 1, `n${i}`));
      resolver.addAlias('Boss', `F${i}/n${i}.md`, thing(i + 1, `n${i}`));
    }
    for (let i = 0; i < 3000; i++) expect(resolver.from(`F${i}/other.md`)('boss', true)).toMatchObject({ key: i + 1 });
    expect(resolver.from('elsewhere.md')('BOSS', true)).toMatchObject({ key: 1 });
    expect(counted.resolutions).toBe(3001);
    expect(counted.visits).toBeLessThanOrEqual(2 * 3000); // the notes by name once (no `boss.md`), the alias's notes once
  });
});

// Random vaults: folders and names that differ only by case or Unicode normalisation, notes and
// images of the same name, aliases; links of every form Obsidian writes, and broken ones.
const segment = fc.constantFrom('a', 'A', 'b', 'sub', 'é', 'e\u0301', 'x y', 'x');
const fileName = fc.constantFrom('x', 'X', 'y', 'é', 'e\u0301', 'x y', 'x.png', 'a');
const entry = fc.record({
  folders: fc.array(segment, { maxLength: 3 }),
  name: fileName,
  image: fc.boolean(),
  aliases: fc.array(fc.constantFrom('x', 'Boss', 'y', 'é', 'a/x'), { maxLength: 2 }),
});
const referenceOf = (paths: readonly string[]) =>
  fc.oneof(
    // Part of a path of the vault: its last segments, as written or not.
    fc.record({ at: fc.nat(), keep: fc.integer({ min: 1, max: 4 }), md: fc.boolean(), upper: fc.boolean(), form: fc.constantFrom('', '/', './', '../', '%', '\\', ' ') }).map(({ at, keep, md, upper, form }) => {
      const whole = paths.length === 0 ? 'x' : paths[at % paths.length]!.replace(/\.md$/, '');
      let reference = whole.split('/').slice(-keep).join('/') + (md ? '.md' : '');
      if (upper) reference = reference.toUpperCase();
      if (form === '%') return encodeURI(reference);
      if (form === '\\' || form === ' ') return form === '\\' ? `${reference}\\` : ` ${reference} `;
      return form + reference;
    }),
    fc.constantFrom('Boss', 'é', 'e\u0301', 'x', 'a/x', 'x.png', 'X.PNG', '../x', './x', '/x', 'sub/x', 'x%20y', '%E9', '%', '', '.md', 'x/', 'a//x'),
    fc.string({ unit: fc.constantFrom('a', 'x', '/', '.', 'm', 'd', '%', '\\', ' ', 'é'), maxLength: 8 }),
  );

describe('the resolver', () => {
  it('answers what the rules read straight answer, on random vaults, before and after more notes are added', () => {
    const layout = fc.uniqueArray(entry, { minLength: 1, maxLength: 14, selector: (e) => [...e.folders, `${e.name}${e.image ? '' : '.md'}`].join('/') });
    fc.assert(
      fc.property(
        layout.chain((entries) => {
          const paths = entries.map((e) => [...e.folders, `${e.name}${e.image ? '' : '.md'}`].join('/'));
          return fc.tuple(fc.constant(entries), fc.constant(paths), fc.array(referenceOf(paths), { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: entries.length }));
        }),
        ([entries, paths, references, firstBatch]) => {
          const fast = new Resolver();
          const slow = new ReferenceResolver();
          const targets = entries.map((e, i): Target => (e.image ? { kind: 'image', key: i + 1 } : thing(i + 1, e.name)));
          const addFrom = (start: number, end: number) => {
            for (let i = start; i < end; i++) {
              fast.add(paths[i]!, targets[i]!);
              slow.add(paths[i]!, targets[i]!);
            }
            for (let i = start; i < end; i++) {
              if (entries[i]!.image) continue;
              for (const alias of entries[i]!.aliases) {
                fast.addAlias(alias, paths[i]!, targets[i]!);
                slow.addAlias(alias, paths[i]!, targets[i]!);
              }
            }
          };
          const check = () => {
            for (const from of [...paths.filter((p) => p.endsWith('.md')), 'index.md', 'A/deeper/note.md']) {
              const [a, b] = [fast.from(from), slow.from(from)];
              for (const reference of references) expect(a(reference, true), `${reference} from ${from}`).toBe(b(reference));
            }
          };
          addFrom(0, firstBatch);
          check();
          addFrom(firstBatch, entries.length);
          check();
        },
      ),
      { numRuns: 300 },
    );
  });
});
