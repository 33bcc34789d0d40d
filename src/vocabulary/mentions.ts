// Mentions (CONTRACT "Rich content", "Secrets that hold"): an inline `mention` element naming a
// thing or an arc by id. The editor stores no name (`children: [{text: ""}]`); non-empty children
// are a label, shown instead of the target's current name (a vault's `[[Target|label]]`).
import type { MentionTargetType } from './elements.js';
import { isElementNode, textOf } from './nodes.js';

export interface MentionTarget {
  targetType: MentionTargetType;
  targetId: number;
}

export function isMentionNode(node: unknown): boolean {
  return isElementNode(node) && node.type === 'mention';
}

/** The record a mention names, or undefined for a mention without a well-formed target. */
export function mentionTarget(node: unknown): MentionTarget | undefined {
  if (!isElementNode(node) || node.type !== 'mention') return undefined;
  const { targetType, targetId } = node;
  if ((targetType !== 'thing' && targetType !== 'arc') || typeof targetId !== 'number' || !Number.isSafeInteger(targetId)) return undefined;
  return { targetType, targetId };
}

/** A mention's own label: the text of its children, '' when it has none (shows the current name). */
export function mentionLabel(node: unknown): string {
  return textOf(node);
}

/** A mention element as the editor inserts it: no name, so nothing goes stale or leaks. */
export function newMention(targetType: MentionTargetType, targetId: number): { type: 'mention'; targetType: MentionTargetType; targetId: number; children: [{ text: '' }] } {
  return { type: 'mention', targetType, targetId, children: [{ text: '' }] };
}
