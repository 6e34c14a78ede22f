// The command tree, in the order `cardctl --help` lists it. Each entry is a definition
// (flags, help, run); run() bodies import their heavy modules lazily.
import type { AnyCommand, GroupDefinition } from '../core/command.js';
import alias from './alias/index.js';
import api from './api.js';
import auth from './auth/index.js';
import cards from './cards/index.js';
import completion from './completion.js';
import demo from './demo.js';
import doctor from './doctor.js';
import history from './history.js';
import importCards from './import.js';
import login from './login.js';
import logout from './logout.js';
import oauth from './oauth/index.js';
import profile from './profile/index.js';
import sandbox from './sandbox/index.js';
import simulate from './simulate/index.js';
import tx from './tx/index.js';
import users from './users/index.js';
import webhook from './webhook/index.js';

export const commandTree: Array<AnyCommand | GroupDefinition> = [
  cards, tx, simulate, webhook, importCards, oauth, users,
  login, logout, auth, profile,
  doctor, history, alias,
  sandbox, demo, api, completion,
];
