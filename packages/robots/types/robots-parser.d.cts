/**
 * robots-parser 3.0.1's own `index.d.ts` declares an ES `export default`, but the package is
 * CommonJS (`module.exports = function …`). Under Node's ESM rules (`moduleResolution:
 * NodeNext`, the build's setting) TypeScript therefore types the default import as the module
 * object rather than the function that Node actually hands over. This declaration (`.d.cts`: a CommonJS module) says what the
 * module really exports; `tsconfig.build.json` maps `robots-parser` to it.
 */
declare namespace robotsParser {
  interface Robot {
    isAllowed(url: string, ua?: string): boolean | undefined;
    isDisallowed(url: string, ua?: string): boolean | undefined;
    getMatchingLineNumber(url: string, ua?: string): number;
    getCrawlDelay(ua?: string): number | undefined;
    getSitemaps(): string[];
    getPreferredHost(): string | null;
  }
}
declare function robotsParser(url: string, robotstxt: string): robotsParser.Robot;
export = robotsParser;
