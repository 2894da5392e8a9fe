/** CSS imports are bundled by esbuild into `console.css`; they export nothing. */
declare module '*.css';
