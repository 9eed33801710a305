import type { SimAccount, SimGroup } from './sim-types.js';

// The users and groups of the demo installation. anna (3) is the fixtures' superuser; ben (4) is the default
// limited user (sim-users.ts); carla (5) inherits her permissions from Accounting. Ids 1 and 2 are the two
// accounts every list hides (UserViewSet excludes "consumer" and "AnonymousUser"), which is why anna is 3.

// Django 5.2's PBKDF2 hash: "pbkdf2_sha256$1000000$<22-char salt>$<44-char digest>", 89 characters.
const hash = (salt: string) => `pbkdf2_sha256$1000000$${salt.padEnd(22, 'x').slice(0, 22)}$${'Q'.repeat(43)}=`;

/** What `startSimulator({ users })` takes: an id and any fields to set (the rest from the seeded account or defaults). */
export type SimAccountInput = Partial<SimAccount> & Pick<SimAccount, 'id'>;

/** A complete account: `fields` over `base` (a seeded account), or over defaults for a new user. */
export function account(fields: SimAccountInput, base?: SimAccount): SimAccount {
  const username = fields.username ?? base?.username ?? `user${fields.id}`;
  const given = Object.fromEntries(Object.entries(structuredClone(fields)).filter(([, value]) => value !== undefined));
  return {
    username,
    email: '',
    password: hash(username),
    first_name: '',
    last_name: '',
    date_joined: '2025-03-03T09:00:00.000000+01:00',
    is_staff: false,
    is_active: true,
    is_superuser: false,
    groups: [],
    user_permissions: [],
    ...base,
    ...given,
    id: fields.id,
  };
}

const READ_ALL = [
  'view_document',
  'view_tag',
  'view_correspondent',
  'view_documenttype',
  'view_storagepath',
  'view_customfield',
  'view_note',
];

export function seedAccounts(): SimAccount[] {
  return [
    // guardian's anonymous user has an unusable password: "!" and 40 random characters.
    account({
      id: 1,
      username: 'AnonymousUser',
      password: `!${'u'.repeat(40)}`,
      date_joined: '2024-11-02T10:03:51.284113+01:00',
    }),
    account({
      id: 2,
      username: 'consumer',
      password: `!${'c'.repeat(40)}`,
      date_joined: '2024-11-02T10:03:51.301570+01:00',
    }),
    account({
      id: 3,
      username: 'anna',
      email: 'anna@berger.example',
      first_name: 'Anna',
      last_name: 'Berger',
      date_joined: '2024-11-02T10:04:12.771902+01:00',
      is_staff: true,
      is_superuser: true,
    }),
    account({
      id: 4,
      username: 'ben',
      first_name: 'Ben',
      last_name: 'Berger',
      date_joined: '2024-11-03T18:22:40.118305+01:00',
      groups: [1],
    }),
    account({
      id: 5,
      username: 'carla',
      email: 'carla@steuerbuero.example',
      first_name: 'Carla',
      last_name: 'Vogt',
      date_joined: '2025-01-14T08:51:09.630447+01:00',
      groups: [2],
    }),
  ];
}

export function seedGroups(): SimGroup[] {
  return [
    { id: 1, name: 'Family', permissions: [] },
    { id: 2, name: 'Accounting', permissions: [...READ_ALL, 'change_document', 'add_note'] },
  ];
}
