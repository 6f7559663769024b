// What a rule reports: a field error of a named type at a field path, in the spirit of Gardener's
// field.Required/Invalid/Forbidden/NotSupported/Duplicate. The rule ID is added by evaluate().

/** The kind of a field error: what is wrong with the field, apart from the words of the message. */
export type ErrorType = 'Required' | 'Invalid' | 'Forbidden' | 'NotSupported' | 'Duplicate' | 'NotFound';

/** A problem at a field: what the schema check of parse.ts reports, and a rule's violation without its type. */
export interface FieldError {
  /** Field path, e.g. `spec.kubernetes.versions[3].lifecycle[1].classification`; '' for the whole object. */
  field: string;
  /** Lower-case, names the version(s) and the other side of any conflict. */
  message: string;
}

export interface FieldViolation extends FieldError {
  type: ErrorType;
}

/**
 * FieldPath is a field's path, built by steps like Gardener's `field.NewPath`:
 * `fieldPath('spec', 'kubernetes', 'versions').index(3).child('version')`. Its text is made when
 * first read, so a path built for every entry costs one small object until a violation prints it.
 */
export class FieldPath {
  private text: string | undefined = undefined;

  private constructor(
    private readonly parent: FieldPath | undefined,
    private readonly step: string | number,
  ) {}

  /** The path of the whole object (''): the root every path grows from. */
  static readonly ROOT = new FieldPath(undefined, '');

  child(...names: string[]): FieldPath {
    let path: FieldPath | undefined;
    for (const name of names) path = new FieldPath(path ?? this, name);
    return path ?? this;
  }

  index(i: number): FieldPath {
    return new FieldPath(this, i);
  }

  toString(): string {
    if (this.text === undefined) {
      const head = this.parent === undefined ? '' : this.parent.toString();
      this.text =
        typeof this.step === 'number' ? `${head}[${this.step}]` : head === '' ? this.step : `${head}.${this.step}`;
    }
    return this.text;
  }
}

/** The path of a field, or of the whole object when called without a name. */
export const fieldPath = (...names: string[]): FieldPath => FieldPath.ROOT.child(...names);

const made =
  (type: ErrorType) =>
  (at: FieldPath, message: string): FieldViolation => ({ type, field: at.toString(), message });

/** A field that must be given and is not. */
export const required = made('Required');
/** A value of the wrong form. */
export const invalid = made('Invalid');
/** A value or change that is not allowed here, whatever its form. */
export const forbidden = made('Forbidden');
/** A value outside a fixed set; the message lists the supported values. */
export const notSupported = made('NotSupported');
/** A value given twice where it must be unique. */
export const duplicate = made('Duplicate');
/** A reference to something that does not exist. */
export const notFound = made('NotFound');
