// The English table: the reference. Every other language is typed as `Messages`.
import { common } from './common';
import { app } from './app';
import { queue } from './queue';
import { detail } from './detail';
import { args } from './args';
import { resume } from './resume';
import { engines } from './engines';
import { settings } from './settings';
import { tokens } from './tokens';
import { audit } from './audit';
import { grants } from './grants';
import { team } from './team';
import { errors } from './errors';
import { diff } from './diff';
import { changes } from './changes';
import { remote } from './remote';
import { reach } from './reach';
import { risk } from './risk';
import { desk } from './desk';

export const en = { common, app, queue, detail, args, resume, engines, settings, tokens, audit, grants, team, errors, diff, changes, remote, reach, risk, desk };

export type Messages = typeof en;
