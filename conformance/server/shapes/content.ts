/**
 * Judgements of the encoded parts of prompt messages and resource contents, the same in both eras:
 * image and audio data (base64 with a valid MIME type), embedded and read resource contents (a valid URI,
 * base64 blobs). Each issue names the rule it breaks, so each check reports only the rule it owns.
 */
import { isObject } from '../../../src/util/is-object.js';
import { isBase64, isMimeType, uriProblem } from './encoding.js';

export type ShapeRule = 'base64' | 'mime' | 'uri';

export interface ShapeIssue {
  rule: ShapeRule;
  /** Where, as a JSON pointer into the judged value, e.g. `/messages/1/content/data`. */
  at: string;
  detail: string;
}

/** At most this much of a bad value is quoted (a blob may be megabytes). */
const QUOTE = 60;

function quote(value: string): string {
  return JSON.stringify(value.length > QUOTE ? `${value.slice(0, QUOTE)}…` : value);
}

function base64Issue(value: unknown, at: string): ShapeIssue[] {
  if (typeof value !== 'string' || isBase64(value)) return [];
  return [{ rule: 'base64', at, detail: `not base64: ${quote(value)}` }];
}

function mimeIssue(value: unknown, at: string): ShapeIssue[] {
  if (typeof value !== 'string' || isMimeType(value)) return [];
  return [{ rule: 'mime', at, detail: `not a MIME type: ${quote(value)}` }];
}

export function uriIssue(value: unknown, at: string): ShapeIssue[] {
  if (typeof value !== 'string') return [];
  const problem = uriProblem(value);
  return problem === null ? [] : [{ rule: 'uri', at, detail: `${quote(value)}: ${problem}` }];
}

/**
 * One resource's contents (TextResourceContents or BlobResourceContents): its URI, its MIME type when
 * given, its blob. Fields of the wrong type are left to the schema checks.
 */
export function resourceContentsIssues(contents: unknown, at: string): ShapeIssue[] {
  if (!isObject(contents)) return [];
  return [
    ...uriIssue(contents.uri, `${at}/uri`),
    ...mimeIssue(contents.mimeType, `${at}/mimeType`),
    ...base64Issue(contents.blob, `${at}/blob`),
  ];
}

/** One content block: image and audio data with their MIME type, embedded resources, resource links. */
export function contentBlockIssues(block: unknown, at: string): ShapeIssue[] {
  if (!isObject(block)) return [];
  switch (block.type) {
    case 'image':
    case 'audio':
      // A MIME type is required for media; its absence is the schema's to report.
      return [...base64Issue(block.data, `${at}/data`), ...mimeIssue(block.mimeType, `${at}/mimeType`)];
    case 'resource':
      return resourceContentsIssues(block.resource, `${at}/resource`);
    case 'resource_link':
      return [...uriIssue(block.uri, `${at}/uri`), ...mimeIssue(block.mimeType, `${at}/mimeType`)];
    default:
      return [];
  }
}

/** A message's content: one block (prompts, sampling) or an array of blocks (sampling from 2025-11-25). */
export function blocksOf(content: unknown): unknown[] {
  return Array.isArray(content) ? content : content === undefined ? [] : [content];
}

/** Every encoded part of a GetPromptResult's messages. */
export function promptResultIssues(result: unknown): ShapeIssue[] {
  if (!isObject(result) || !Array.isArray(result.messages)) return [];
  return result.messages.flatMap((message, index) => {
    if (!isObject(message)) return [];
    const content = message.content;
    const at = `/messages/${index}/content`;
    return Array.isArray(content)
      ? content.flatMap((block, b) => contentBlockIssues(block, `${at}/${b}`))
      : contentBlockIssues(content, at);
  });
}

/** Every encoded part of a ReadResourceResult's contents. */
export function readResultIssues(result: unknown): ShapeIssue[] {
  if (!isObject(result) || !Array.isArray(result.contents)) return [];
  return result.contents.flatMap((contents, index) => resourceContentsIssues(contents, `/contents/${index}`));
}

/** Whether a prompt result or read result has anything this module judges (media, blobs, embedded). */
export function hasEncodedParts(result: unknown): boolean {
  if (!isObject(result)) return false;
  const blocks = Array.isArray(result.messages)
    ? result.messages.flatMap((m) => (isObject(m) ? blocksOf(m.content) : []))
    : [];
  const media = blocks.some(
    (b) => isObject(b) && ['image', 'audio', 'resource', 'resource_link'].includes(String(b.type)),
  );
  const blobs =
    Array.isArray(result.contents) && result.contents.some((c) => isObject(c) && typeof c.blob === 'string');
  return media || blobs;
}

export function describeIssues(issues: readonly ShapeIssue[], max = 5): string {
  const shown = issues.slice(0, max).map((issue) => `${issue.at}: ${issue.detail}`);
  if (issues.length > max) shown.push(`… ${issues.length - max} more`);
  return shown.join('; ');
}
