/**
 * The channels' secrets (issue 44): a part of `Backend` of its own. A channel's secret (its webhook's
 * signing key, Slack URL, SMTP password or Matrix token) is never in the `reach` settings, nor where
 * it is kept: it is the channel's own, found by its name, and only the local admin sets it.
 */
import type { components } from './api.gen';

type Schemas = components['schemas'];

/** Where a channel's secret is kept: `keyring` (the OS keyring: the desktop app) or `file` (an owner-only file of the data directory). */
export type SecretPlace = Schemas['ChannelSecretPlace'];
/** A channel whose secret is set, and where it is kept (never the value). */
export type ChannelSecret = Schemas['ChannelSecret'];
/** A channel's secret removed, and where it was. */
export type RemovedChannelSecret = Schemas['RemovedChannelSecret'];

export interface ChannelSecretsBackend {
  /** The channels whose secret is set, and where each is kept (operators and admins; never a value). */
  channelSecrets(): Promise<ChannelSecret[]>;
  /**
   * Sets a channel's secret, replacing any; the channel need not be saved yet. The local admin only:
   * `forbidden` for a stored credential, whatever its role. `invalid_request` for a name that is not
   * a channel's, or a value empty or of several lines.
   */
  setChannelSecret(name: string, value: string): Promise<ChannelSecret>;
  /** Removes a channel's secret (the local admin only). `not_found` when it has none. */
  removeChannelSecret(name: string): Promise<RemovedChannelSecret>;
}
