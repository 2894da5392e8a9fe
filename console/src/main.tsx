/** Entry point: renders the console into `#app` (index.html). */
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(<App />, root);
