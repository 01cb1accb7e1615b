/**
 * The judgement behind tasks.id-entropy: counters and millisecond clocks fail, random ids of any alphabet
 * pass. The check itself is calibrated by fixtures/conformance/spec-breaker.tasks-sequential-ids.expected.json.
 */
import { describe, expect, it } from 'vitest';
import { guessableIdsIssue } from './task-id-entropy.js';

describe('guessable task ids', () => {
  it.each([
    [['task-1', 'task-2', 'task-3']],
    [['1', '2']],
    [['job-1733112345678-x', 'job-1733112345690-x']],
    [['t9', 't10', 't11']],
  ])('flags %j', (ids) => {
    expect(guessableIdsIssue(ids)).not.toBeNull();
  });

  it.each([
    [
      [
        'furfly-task-3b241101-e2bb-4255-8caf-4136c566a962',
        'furfly-task-9a8e7f2c-1d3b-4c5a-b6e7-f8a9b0c1d2e3',
      ],
    ],
    [['4829103847', '1772391055']],
    [['01HZX3K5Q8R2', '01HZX3K9T7W4']],
    [['task-echo', 'task-add']],
    [['only-one']],
    [['same', 'same']],
  ])('leaves %j alone', (ids) => {
    expect(guessableIdsIssue(ids)).toBeNull();
  });
});
