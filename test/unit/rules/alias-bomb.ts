/** The classic "billion laughs": nine levels of nine aliases each (9^9 strings when expanded). */
export const ALIAS_BOMB = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  .concat(
    'bcdefghi'.split('').map((c, i) => {
      const prev = 'abcdefghi'[i];
      return `${c}: &${c} [${Array(9).fill(`*${prev}`).join(',')}]`;
    }),
  )
  .join('\n');
