// The one list of Paperless-ngx release profiles that every test which must hold on every supported release loops over.
import {
  ALL_PROFILES,
  SIM_PROFILES,
  behaviourOf,
  type SimBehaviour,
  type SimProfileName,
} from '../../server/dms/demo/profiles.js';

export type { SimProfileName };

/** Every release group the simulator poses as, newest first (docs/dms.md, "Releases"). */
export const PROFILES: readonly SimProfileName[] = ALL_PROFILES;

/** The release a profile names in `X-Version`. */
export const releaseOf = (profile: SimProfileName): string => SIM_PROFILES[profile].release;

/** How the profile's release behaves where releases differ. */
export const behaviourOfProfile = (profile: SimProfileName): SimBehaviour => behaviourOf(SIM_PROFILES[profile]);

/** The API version the client ends up speaking: the newest the release allows (10 on 3.0, 9 on 2.x). */
export const apiVersionOf = (profile: SimProfileName): number => Math.max(...SIM_PROFILES[profile].apiVersions);
