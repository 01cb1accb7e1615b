/** Types of run-suite.mjs, for the TypeScript test that imports it. */
export interface ScenarioResult {
  readonly name: string;
  readonly specVersion: string | undefined;
  readonly passed: boolean;
  readonly checks: number;
  readonly failures: string[];
  /** Checks the suite skipped or found untestable. */
  readonly unexercised: string[];
  readonly clientStderr: string;
  readonly summary: string[];
}
export declare const SUITE_NODE: string;
export declare function ensureSuiteNode(): void;
export declare const SUITE_MAIN: string;
export declare const CORE_SCENARIOS: string[];
export declare const EXTENSION_SCENARIOS: string[];
export declare function listedClientScenarios(): Promise<Array<{ name: string; tags: string[] }>>;
export declare function runScenario(
  name: string,
  options?: { specVersion?: string; timeoutMs?: number },
): Promise<ScenarioResult>;
export declare function runScenarios(
  runs: ReadonlyArray<{ name: string; specVersion?: string }>,
  concurrency?: number,
): Promise<ScenarioResult[]>;
