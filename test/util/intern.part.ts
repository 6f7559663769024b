import t from 'tap';
import { interner } from '../../src/util/intern.js';

t.test('a string comes back equal; anything else comes back as it is', async (t) => {
  const share = interner(10);
  const built = ['1.31', '.7'].join('');
  t.equal(share('1.31.7'), '1.31.7');
  t.equal(share(built), '1.31.7', 'an equal string built elsewhere');
  const o = { version: '1.31.7' };
  t.equal(share(o), o, 'an object: the same object');
  t.equal(share(undefined), undefined);
  t.equal(share(3), 3);
});
