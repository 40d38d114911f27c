#!/usr/bin/env node
// The listkeeper command; the code lives in src/cli (compiled to dist by `npm install`).
import '../dist/src/cli/main.js';
