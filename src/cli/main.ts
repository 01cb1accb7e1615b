#!/usr/bin/env node
import { createRequire } from 'node:module';
import { cac } from 'cac';

const require = createRequire(import.meta.url);
const { version } = require('../../../package.json') as { version: string };

const cli = cac('furfly');
cli.help();
cli.version(version);
cli.parse();
