"""The Python side of test/interop/python-readers.test.ts: reads the service's answers as a Python client does.

    python3 readers.py --check          prints the missing modules (one a line), nothing when all are there
    python3 readers.py MANIFEST.json    prints one JSON report on stdout

The manifest (written by the test) lists Parquet files with their documented columns, and JSON answers
with the OpenAPI schema of their 200 response and the document's component schemas.

- Parquet: each file is read with pyarrow.parquet, polars.read_parquet, pandas.read_parquet and DuckDB;
  each reader must see exactly the documented columns, in order, and all four the same row count.
  Columns named in `null_columns` must be entirely null in every reader (a metric the activity lacks),
  pyarrow's type of each column named in `types` must be the documented one (`timestamp[ms, tz=UTC]`),
  and every column chunk Snappy or zstd compressed.
- JSON: the answer is parsed with the json module and walked beside its schema. Every value of a field
  typed `number` must be a float (gaps.md: "`4998.0` … typed clients build float columns from them"):
  a Python int there is reported, and so is what each library makes of the column — polars infers Int64
  (or raises TypeError when a float follows, the official client's failure), pyarrow infers int64,
  pandas int64. Each column is also built with an explicit type, strictly: polars Float64, pyarrow
  float64, pandas float64. Fields typed `integer` must stay ints (polars Int64 strict refuses 250.0).

It only reads and reports; the test decides. Deliberately standard library plus the four readers.
"""
import json
import sys

MODULES = ('pyarrow', 'polars', 'pandas', 'duckdb')


def missing_modules():
    import importlib.util
    return [name for name in MODULES if importlib.util.find_spec(name) is None]


# --------------------------------------------------------------------------------------------------------
# Parquet


def read_parquet_everywhere(path):
    """{reader: {columns, rows, nulls: {column: null count}}} or {reader: {error}}; pyarrow's also types."""
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow.parquet as pq

    def with_pyarrow():
        table = pq.read_table(path)
        types['pyarrow'] = {field.name: str(field.type) for field in table.schema}
        return table.column_names, table.num_rows, {name: table.column(name).null_count for name in table.column_names}

    def with_polars():
        frame = pl.read_parquet(path)
        return frame.columns, frame.height, {name: frame.get_column(name).null_count() for name in frame.columns}

    def with_pandas():
        frame = pd.read_parquet(path)
        return list(frame.columns), len(frame), {name: int(frame[name].isna().sum()) for name in frame.columns}

    def with_duckdb():
        connection = duckdb.connect(':memory:')
        try:
            columns = connection.read_parquet(path).columns
            rows = connection.sql('SELECT count(*) FROM read_parquet($path)', params={'path': path}).fetchone()[0]
            nulls = {}
            for name in columns:
                quoted = '"' + name.replace('"', '""') + '"'
                nulls[name] = connection.sql(
                    f'SELECT count(*) - count({quoted}) FROM read_parquet($path)', params={'path': path}).fetchone()[0]
            return columns, rows, nulls
        finally:
            connection.close()

    result = {}
    types = {}
    for name, read in (('pyarrow', with_pyarrow), ('polars', with_polars), ('pandas', with_pandas), ('duckdb', with_duckdb)):
        try:
            columns, rows, nulls = read()
            result[name] = {'columns': list(columns), 'rows': int(rows), 'nulls': {key: int(value) for key, value in nulls.items()}}
            if name in types:
                result[name]['types'] = types[name]
        except Exception as error:  # a reader refusing the file is the finding
            result[name] = {'error': f'{type(error).__name__}: {error}'}
    return result


def check_compression(path):
    """gaps.md "Wire conventions": "Snappy or zstd compression"."""
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(path).metadata
    used = {metadata.row_group(group).column(column).compression
            for group in range(metadata.num_row_groups) for column in range(metadata.num_columns)}
    other = sorted(used - {'SNAPPY', 'ZSTD'})
    return [f'compressed with {other}, documented Snappy or zstd'] if other else []


def check_parquet(entry):
    reads = read_parquet_everywhere(entry['file'])
    problems = []
    counts = {}
    for reader, read in reads.items():
        if 'error' in read:
            problems.append(f'{reader} cannot read it: {read["error"]}')
            continue
        counts[reader] = read['rows']
        if read['columns'] != entry['columns']:
            missing = [name for name in entry['columns'] if name not in read['columns']]
            problems.append(f'{reader} columns {read["columns"]}, documented {entry["columns"]}' + (f' (missing {missing})' if missing else ''))
        for name in entry.get('null_columns', []):
            if name in read['nulls'] and read['nulls'][name] != read['rows']:
                problems.append(f'{reader}: {name} has {read["rows"] - read["nulls"][name]} non-null values, expected none')
    problems.extend(check_compression(entry['file']))
    arrow_types = reads['pyarrow'].get('types', {})
    for name, expected in entry.get('types', {}).items():
        if name in arrow_types and arrow_types[name] != expected:
            problems.append(f'pyarrow types {name} as {arrow_types[name]}, documented {expected}')
    if len(set(counts.values())) > 1:
        problems.append(f'row counts differ: {counts}')
    rows = next(iter(counts.values()), None)
    if rows is not None and rows < entry.get('min_rows', 0):
        problems.append(f'{rows} rows, expected at least {entry["min_rows"]}')
    return {'rows': rows, 'readers': sorted(counts), 'types': arrow_types, 'problems': problems}


# --------------------------------------------------------------------------------------------------------
# JSON float and integer fields


class Schemas:
    def __init__(self, components):
        self.components = components

    def resolve(self, schema):
        seen = 0
        while isinstance(schema, dict) and '$ref' in schema and seen < 50:
            schema = self.components[schema['$ref'].rsplit('/', 1)[-1]]
            seen += 1
        return schema if isinstance(schema, dict) else {}

    def branches(self, schema):
        """The alternatives of a schema, flattened (anyOf/oneOf/allOf are treated alike: any may apply)."""
        schema = self.resolve(schema)
        for key in ('anyOf', 'oneOf', 'allOf'):
            if key in schema:
                return [branch for alternative in schema[key] for branch in self.branches(alternative)]
        return [schema]


def types_of(schema):
    kind = schema.get('type')
    if kind is None:
        return set()
    return set(kind) if isinstance(kind, list) else {kind}


def walk(schemas, schema, value, path, fields):
    """Adds (path, kind, value) to fields for every value whose schema is number or integer."""
    branches = schemas.branches(schema)
    kinds = set().union(*(types_of(branch) for branch in branches)) if branches else set()
    if value is None:
        if 'number' in kinds:
            fields.setdefault(path, ('number', []))[1].append(None)
        elif 'integer' in kinds:
            fields.setdefault(path, ('integer', []))[1].append(None)
        return
    if isinstance(value, bool) or isinstance(value, str):
        return
    if isinstance(value, (int, float)):
        # A union of integer and number is written as a float (json-writer.ts), so number wins.
        if 'number' in kinds:
            fields.setdefault(path, ('number', []))[1].append(value)
        elif 'integer' in kinds:
            fields.setdefault(path, ('integer', []))[1].append(value)
        return
    if isinstance(value, list):
        items = [branch['items'] for branch in branches if 'items' in branch]
        for item in value:
            for item_schema in items[:1]:
                walk(schemas, item_schema, item, f'{path}[]', fields)
        return
    if isinstance(value, dict):
        objects = [branch for branch in branches if 'properties' in branch or isinstance(branch.get('additionalProperties'), dict)]
        for key, item in value.items():
            for branch in objects:
                if key in branch.get('properties', {}):
                    walk(schemas, branch['properties'][key], item, f'{path}.{key}' if path else key, fields)
                    break
                if isinstance(branch.get('additionalProperties'), dict):
                    walk(schemas, branch['additionalProperties'], item, f'{path}.{key}' if path else key, fields)
                    break


def check_float_column(path, values):
    """Problems with one float-typed column, as each library builds it."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    problems = []
    ints = [value for value in values if isinstance(value, int)]
    if ints:
        problems.append(f'{path}: {len(ints)} of {len(values)} values are JSON integers (e.g. {ints[0]}), not floats')
    present = [value for value in values if value is not None]
    try:
        inferred = pl.Series(path, values, strict=True).dtype
        if present and inferred != pl.Float64:
            problems.append(f'{path}: polars infers {inferred}, not Float64')
    except TypeError as error:
        problems.append(f'{path}: polars raises TypeError building the column: {str(error).splitlines()[0]}')
    try:
        pl.DataFrame({path: values}, schema={path: pl.Float64}, strict=True)
    except Exception as error:
        problems.append(f'{path}: polars strict Float64 refuses it: {type(error).__name__}: {str(error).splitlines()[0]}')
    try:
        inferred = pa.array(values).type
        if present and inferred != pa.float64():
            problems.append(f'{path}: pyarrow infers {inferred}, not double')
        pa.array(values, pa.float64())
    except Exception as error:
        problems.append(f'{path}: pyarrow refuses it: {type(error).__name__}: {error}')
    inferred = pd.Series(values).dtype
    if present and str(inferred) != 'float64':
        problems.append(f'{path}: pandas infers {inferred}, not float64')
    try:
        pd.Series(values, dtype='float64')
    except Exception as error:
        problems.append(f'{path}: pandas float64 refuses it: {type(error).__name__}: {error}')
    return problems


def check_integer_column(path, values):
    import polars as pl

    problems = []
    floats = [value for value in values if isinstance(value, float)]
    if floats:
        problems.append(f'{path}: {len(floats)} of {len(values)} values are JSON floats (e.g. {floats[0]}), not integers')
    try:
        pl.Series(path, values, dtype=pl.Int64, strict=True)
    except TypeError as error:
        problems.append(f'{path}: polars strict Int64 raises TypeError: {str(error).splitlines()[0]}')
    return problems


def check_json(entry, schemas):
    with open(entry['file'], encoding='utf-8') as handle:
        body = json.load(handle)
    fields = {}
    rows = body if isinstance(body, list) else [body]
    row_schema = entry['schema']
    if isinstance(body, list):
        items = [branch['items'] for branch in schemas.branches(row_schema) if 'items' in branch]
        row_schema = items[0] if items else {}
    for row in rows:
        walk(schemas, row_schema, row, '', fields)
    problems = []
    float_paths = sorted(path for path, (kind, _) in fields.items() if kind == 'number')
    integer_paths = sorted(path for path, (kind, _) in fields.items() if kind == 'integer')
    for path in float_paths:
        problems.extend(check_float_column(path, fields[path][1]))
    for path in integer_paths:
        problems.extend(check_integer_column(path, fields[path][1]))
    # The rows themselves as one strict polars frame over the top-level float fields, as a client builds it.
    top = [path for path in float_paths if '.' not in path and '[]' not in path]
    if top:
        import polars as pl
        try:
            pl.DataFrame([{path: row.get(path) for path in top} for row in rows], schema={path: pl.Float64 for path in top}, strict=True)
        except Exception as error:
            problems.append(f'polars strict frame of {top}: {type(error).__name__}: {str(error).splitlines()[0]}')
    present = lambda path: sum(value is not None for value in fields[path][1])
    return {
        'rows': len(rows),
        'float_fields': {path: present(path) for path in float_paths},
        'integer_fields': {path: present(path) for path in integer_paths},
        'problems': problems,
    }


def main(argv):
    if argv[1:] == ['--check']:
        print('\n'.join(missing_modules()))
        return 0
    with open(argv[1], encoding='utf-8') as handle:
        manifest = json.load(handle)
    import duckdb
    import pandas
    import polars
    import pyarrow
    schemas = Schemas(manifest['components'])
    report = {
        'versions': {
            'python': sys.version.split()[0], 'pyarrow': pyarrow.__version__, 'polars': polars.__version__,
            'pandas': pandas.__version__, 'duckdb': duckdb.__version__,
        },
        'parquet': {entry['name']: check_parquet(entry) for entry in manifest['parquet']},
        'json': {entry['name']: check_json(entry, schemas) for entry in manifest['json']},
    }
    json.dump(report, sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
