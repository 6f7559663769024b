// FieldPath prints the paths Gardener's field.Path prints, and each constructor stamps its error type.
import t from '../helpers/parts.js';
import {
  duplicate,
  FieldPath,
  fieldPath,
  forbidden,
  invalid,
  notFound,
  notSupported,
  required,
} from '../../src/api/field.js';

t.test('a path prints as Gardener prints it: names joined by dots, indexes in brackets', async (t) => {
  const versions = fieldPath('spec', 'kubernetes', 'versions');
  t.equal(String(versions), 'spec.kubernetes.versions');
  t.equal(
    String(versions.index(3).child('lifecycle').index(1).child('classification')),
    'spec.kubernetes.versions[3].lifecycle[1].classification',
  );
  t.equal(
    String(fieldPath('spec').child('machineImages').index(0).child('versions').index(12)),
    'spec.machineImages[0].versions[12]',
  );
  t.equal(fieldPath('status', 'cloudProfileSpec').toString(), 'status.cloudProfileSpec');
});

t.test('the whole object is the empty path, and a child of it starts without a dot', async (t) => {
  t.equal(String(fieldPath()), '');
  t.equal(fieldPath(), FieldPath.ROOT, 'no object is made for it');
  t.equal(String(fieldPath().child('spec')), 'spec');
  t.equal(String(fieldPath().index(0)), '[0]');
});

t.test('a path is a value: growing it leaves the parent as it was, also after the parent was printed', async (t) => {
  const list = fieldPath('spec', 'kubernetes', 'versions');
  t.equal(String(list), 'spec.kubernetes.versions');
  const first = list.index(0);
  const second = list.index(1).child('version');
  t.equal(String(first), 'spec.kubernetes.versions[0]');
  t.equal(String(second), 'spec.kubernetes.versions[1].version');
  t.equal(String(list), 'spec.kubernetes.versions');
});

t.test('each constructor carries its error type and prints the path', async (t) => {
  const at = fieldPath('spec', 'parent', 'name');
  const made = [required, invalid, forbidden, notSupported, duplicate, notFound].map((f) => f(at, 'm'));
  t.same(
    made.map((v) => v.type),
    ['Required', 'Invalid', 'Forbidden', 'NotSupported', 'Duplicate', 'NotFound'],
  );
  t.same(made[0], { type: 'Required', field: 'spec.parent.name', message: 'm' });
});
