/**
 * Which client capabilities furfly declares to one server under one protocol version. The spec forbids a
 * server to ask for what a client did not declare, so furfly declares only what it can honour there:
 *
 * | capability           | declared when                                          | from version |
 * |----------------------|--------------------------------------------------------|--------------|
 * | `elicitation.form`   | a person can answer (the interactive session)          | 2025-06-18 (as `elicitation: {}`) |
 * | `elicitation.url`    | a person can answer and open a link                    | 2025-11-25   |
 * | `sampling`           | a person can approve, or the server's `sampling: allow`| 2024-11-05   |
 * | `sampling.tools`     | with `sampling`                                        | 2025-11-25   |
 * | `roots`              | always; `listChanged: true` in the legacy era only     | 2024-11-05   |
 *
 * 2026-07-28 has no `notifications/roots/list_changed` (roots travel with each request), so its
 * `roots` capability is `{}`.
 */
import { isModernVersion } from '../era/modern.js';

export interface DeclaredSupport {
  elicitation?: { form: boolean; url: boolean };
  sampling?: { tools: boolean };
  roots?: boolean;
}

export function clientCapabilitiesFor(version: string, support: DeclaredSupport): Record<string, unknown> {
  const modern = isModernVersion(version);
  const capabilities: Record<string, unknown> = {};
  const { elicitation, sampling } = support;
  if (elicitation && (elicitation.form || elicitation.url) && version >= '2025-06-18') {
    if (version === '2025-06-18') {
      // Only form mode exists there, declared as an empty object.
      if (elicitation.form) capabilities.elicitation = {};
    } else {
      capabilities.elicitation = {
        ...(elicitation.form ? { form: {} } : {}),
        ...(elicitation.url ? { url: {} } : {}),
      };
    }
  }
  if (sampling) capabilities.sampling = sampling.tools && version >= '2025-11-25' ? { tools: {} } : {};
  if (support.roots) capabilities.roots = modern ? {} : { listChanged: true };
  return capabilities;
}
