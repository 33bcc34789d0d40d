/** The narrative fields of an arc, all rich text, in the order the spec lists them. */
export const ARC_TEXT_FIELDS = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'] as const;
export type ArcTextField = (typeof ARC_TEXT_FIELDS)[number];
