/** Types for serve.mjs (the test imports it from TypeScript). */

/** A running example page server. */
export interface ExampleServer {
  /** `http://<host>:<port>`; the page is at `/`, the bundle at `/dist/prebid-bundle.js`. */
  url: string;
  close(): Promise<void>;
}

/** Serves index.html and the bundle on `host` (default 127.0.0.1), `port` (default 0: any free port). */
export declare function startExampleServer(options?: { port?: number; host?: string }): Promise<ExampleServer>;

/**
 * `GET <adxUrl>/v1/publishers` with the admin key: the id of the first publisher with
 * `browser_access` and 127.0.0.1 or localhost in `domains` ("Demo Publisher" first), or
 * undefined; rejects on a network error or a non-200 answer.
 */
export declare function findBrowserPublisherId(options: { adxUrl: string; adminKey: string }): Promise<string | undefined>;
