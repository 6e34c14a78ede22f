// The certification against a handler in a compiled language written from
// docs/webhook-protocol.md alone: Java with the JDK only (examples/webhook-handler/WebhookHandler.java,
// compiled here into a temp folder). Green under both signature schemes; each broken variant red
// with the right check named (test/helpers/example-handlers.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../src/certify/checks.js';
import { describeExampleHandler } from '../helpers/example-handlers.js';

describeExampleHandler('java', { describe, it, expect, beforeAll, afterAll }, CHECK_NAMES);
