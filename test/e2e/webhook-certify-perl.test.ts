// The certification against a handler written from docs/webhook-protocol.md alone, in Perl with
// core modules only (examples/webhook-handler/handler.pl): green under both signature schemes;
// each broken variant red with the right check named (test/helpers/example-handlers.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../src/certify/checks.js';
import { describeExampleHandler } from '../helpers/example-handlers.js';

describeExampleHandler('perl', { describe, it, expect, beforeAll, afterAll }, CHECK_NAMES);
