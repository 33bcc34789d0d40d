import { createQueryId, type Compilable, type CompiledQuery, type Kysely, type RootOperationNode } from 'kysely';

// Building a Kysely query (parsing references, freezing nodes, compiling to SQL) costs far more CPU
// than running a small indexed SELECT on SQLite: about a seventh of a save's CPU went to it. A
// query that runs on every request or every save, and whose shape never changes, is therefore built
// and compiled once per database and then run with new parameter values: same SQL text, same
// operation node, executed through the instance or transaction it is given, so logging (and the
// statement counts of the tests) and the driver's statement cache still apply.

/** What a template is compiled to: its SQL and where each named parameter goes in the parameter list. */
interface CompiledTemplate {
  sql: string;
  query: RootOperationNode;
  /** The compiled parameters, constants kept and the named slots to be filled on each run. */
  parameters: readonly unknown[];
  /** [index in `parameters`, index in the template's names] for every slot. */
  slots: readonly (readonly [number, number])[];
}

/** What a parameter of a template takes: the values the drivers bind. */
export type TemplateValue = string | number | null | Uint8Array;

export interface QueryTemplate<DB, Name extends string, Row> {
  /** Every row, exactly as `build(db, params).execute()` would return them. */
  execute(db: Kysely<DB>, params: Readonly<Record<Name, TemplateValue>>): Promise<Row[]>;
  /** The first row or undefined, as `build(db, params).executeTakeFirst()`. */
  executeTakeFirst(db: Kysely<DB>, params: Readonly<Record<Name, TemplateValue>>): Promise<Row | undefined>;
  /**
   * The same, with `extra` added after the query's values: a PostgreSQL pool connection's pipeline
   * takes a read to write after the statement there (db/pipeline.ts FollowedBy). Never on SQLite.
   */
  executeTakeFirstWith(db: Kysely<DB>, params: Readonly<Record<Name, TemplateValue>>, extra: unknown): Promise<Row | undefined>;
  /** The SQL text and values this query runs with for `params` (to be sent some other way: FollowedBy). */
  compiled(db: Kysely<DB>, params: Readonly<Record<Name, TemplateValue>>): { sql: string; parameters: readonly unknown[] };
}

// A value no real parameter takes. A NUL character cannot even be stored in PostgreSQL text.
function placeholder(name: string): string {
  return `\u0000query-template:${name}\u0000`;
}

/**
 * A query built once per database (a Kysely instance, which fixes the dialect) and then run with
 * new values, on that instance or any of its transactions. `build` must use each parameter only as
 * a value of the query (never branch on it nor transform it: its type, never, lets it go nowhere
 * else): it is called once with placeholders, whose positions in the compiled parameters are
 * recorded; compiling throws if a placeholder is missing or ended up inside the SQL text. `build`
 * may branch on the dialect (dialectOf), which the instance fixes.
 */
export function queryTemplate<DB, const Names extends readonly string[], Row>(
  names: Names,
  build: (db: Kysely<DB>, params: Readonly<Record<Names[number], never>>) => Compilable<Row>,
): QueryTemplate<DB, Names[number], Row> {
  // By the instance's adapter, which its transactions share (each transaction is an instance of its
  // own). An instance with plugins (none here) builds the query afresh: plugins transform the query
  // as it is compiled, and another instance of the same adapter could have other plugins.
  const compiled = new WeakMap<object, CompiledTemplate>();

  function compile(db: Kysely<DB>): CompiledTemplate {
    const placeholders = names.map(placeholder);
    const params = Object.fromEntries(names.map((name, i) => [name, placeholders[i]])) as Record<Names[number], never>;
    const query = build(db, params).compile();
    const slots: (readonly [number, number])[] = [];
    query.parameters.forEach((value, index) => {
      const nameIndex = typeof value === 'string' ? placeholders.indexOf(value) : -1;
      if (nameIndex >= 0) slots.push([index, nameIndex]);
    });
    names.forEach((name, nameIndex) => {
      if (!slots.some(([, n]) => n === nameIndex)) throw new Error(`query template: parameter "${name}" is not a value of the query`);
      if (query.sql.includes(placeholders[nameIndex]!)) throw new Error(`query template: parameter "${name}" was inlined into the SQL`);
    });
    return { sql: query.sql, query: query.query, parameters: query.parameters, slots };
  }

  function toCompiledQuery(db: Kysely<DB>, params: Readonly<Record<Names[number], TemplateValue>>): CompiledQuery<Row> {
    const executor = db.getExecutor();
    if (executor.plugins.length > 0) return build(db, params as Record<Names[number], never>).compile();
    let template = compiled.get(executor.adapter);
    if (!template) {
      template = compile(db);
      compiled.set(executor.adapter, template);
    }
    const parameters = template.parameters.slice();
    for (const [index, nameIndex] of template.slots) parameters[index] = params[names[nameIndex] as Names[number]];
    return { sql: template.sql, query: template.query, parameters, queryId: createQueryId() };
  }

  async function execute(db: Kysely<DB>, params: Readonly<Record<Names[number], TemplateValue>>): Promise<Row[]> {
    const result = await db.executeQuery(toCompiledQuery(db, params));
    return result.rows;
  }

  return {
    execute,
    async executeTakeFirst(db, params) {
      const rows = await execute(db, params);
      return rows[0];
    },
    async executeTakeFirstWith(db, params, extra) {
      const query = toCompiledQuery(db, params);
      const result = await db.executeQuery<Row>({ ...query, parameters: [...query.parameters, extra] });
      return result.rows[0];
    },
    compiled(db, params) {
      const { sql, parameters } = toCompiledQuery(db, params);
      return { sql, parameters };
    },
  };
}
