import { defineGroup } from '../../contract/command.js';
import serve from './serve.js';

export default defineGroup({ name: 'sandbox', summary: 'run the local sandbox of the API', commands: [serve] });
