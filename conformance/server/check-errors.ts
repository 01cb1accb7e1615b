/**
 * What a check throws when it cannot judge. A leaf module: the check context throws them too, and
 * must not import the check catalogue's types to do so.
 */

/**
 * Thrown anywhere inside a check (or a helper it calls) when the check does not apply,
 * e.g. the server declared no `tools` capability. The runner turns it into `skip`.
 */
export class NotApplicable extends Error {
  override readonly name = 'NotApplicable';
}

/**
 * Thrown when a check could not observe what it judges: no reply within the step timeout, response
 * headers that never came, a listing that broke off. That is no evidence that the server breaks the
 * requirement, and no pass either: the runner reports `warn` with a message that starts
 * `could not tell: ` and says what is unknown, whatever the check's level.
 */
export class CouldNotTell extends Error {
  override readonly name = 'CouldNotTell';
  constructor(
    message: string,
    readonly expected?: string,
    readonly actual?: string,
  ) {
    super(message);
  }
}

export const COULD_NOT_TELL = 'could not tell: ';
