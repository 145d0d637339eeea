"""test/clients/python/cosmosdb_table_test.py - Debian's python3-azure-cosmosdb-table (1.0.5, the
TableService of azure.cosmosdb.table) against tablestore-gateway: tables, every entity operation,
every EDM type, batches, queries with continuation markers, table and account SAS, table ACLs;
each check written from the service's documentation and the client's documented behaviour.
One line per check, "N passed, N failed"; exit 1 on a failure.

    /usr/bin/python3 cosmosdb_table_test.py --port N [--crash-read t,pk,rk]

The client reads every entity's ETag from its Timestamp (W/"datetime'<Timestamp>'"): the
conditional operations with the ETag of a read (etag_order_checks) show that the gateway's ETags
are exactly that form (issue 27.3).
"""
import datetime
import logging
import math
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Fail, Recorder, check, eq, ok, parse_args, raises, run  # noqa: E402

from azure.common import AzureHttpError  # noqa: E402
from azure.cosmosdb.table.common.models import AccessPolicy, AccountPermissions, ResourceTypes  # noqa: E402
from azure.cosmosdb.table.common.retry import no_retry  # noqa: E402
from azure.cosmosdb.table.models import (AzureBatchOperationError, AzureBatchValidationError, EdmType,  # noqa: E402
                                         EntityProperty, TablePermissions)
from azure.cosmosdb.table.tablebatch import TableBatch  # noqa: E402
from azure.cosmosdb.table.tableservice import TableService  # noqa: E402

A = parse_args(__doc__.split('\n')[0])
logging.getLogger('azure.cosmosdb').setLevel(logging.CRITICAL)  # the client logs every error it raises
Recorder.install()
UTC = datetime.timezone.utc


def service(sas=None):
    """The development account on the gateway, path-style, as the client's emulator mode."""
    cs = 'UseDevelopmentStorage=true;TableEndpoint=127.0.0.1:%d' % A.port
    if sas:
        cs += ';SharedAccessSignature=' + sas
    ts = TableService(connection_string=cs)
    ts.retry = no_retry  # every answer judged as it came
    return ts


ts = service()


def uniq(prefix):
    return prefix + uuid.uuid4().hex[:8]


def http_err(fn, status, code, what):
    """fn() fails with this status and service error code."""
    try:
        fn()
    except AzureBatchOperationError as e:
        if e.status_code != status or e.code != code:
            raise Fail('%s: got %s %s, want %d %s' % (what, e.status_code, e.code, status, code))
        return e
    except AzureHttpError as e:
        if e.status_code != status or e.error_code != code:
            raise Fail('%s: got %s %s (%s), want %d %s' % (what, e.status_code, e.error_code, str(e).split('\n')[0][:200], status, code))
        return e
    raise Fail('%s: succeeded, want %d %s' % (what, status, code))


def props(e):
    return {k: v for k, v in e.items() if k not in ('PartitionKey', 'RowKey', 'Timestamp', 'etag')}


def value(v):
    return v.value if isinstance(v, EntityProperty) else v


# --------------------------------------------------------------------------------------- tables
def table_checks():
    prefix = uniq('pytab')
    names = [prefix + s for s in 'abcde']

    @check('create_table: True; again: False (fail_on_exist off), 409 TableAlreadyExists (fail_on_exist on)')
    def _():
        for n in names:
            eq(ts.create_table(n), True, 'create ' + n)
        eq(ts.create_table(names[0].upper()), False, 'again')
        http_err(lambda: ts.create_table(names[0], fail_on_exist=True), 409, 'TableAlreadyExists', 'again')

    @check('exists: True for a table, False for a missing one')
    def _():
        eq([ts.exists(names[1]), ts.exists(prefix + 'none')], [True, False], 'exists')

    @check('list_tables, num_results 2: pages through next_marker (NextTableName)')
    def _():
        got, marker, pages = [], None, 0
        while True:
            page = ts.list_tables(num_results=2, marker=marker)
            items = [t.name for t in page]
            got += [n for n in items if n.startswith(prefix)]
            pages += 1
            marker = page.next_marker
            if not marker or pages > 200:
                break
        eq(got, names, 'tables of this run, in order')

    @check('delete_table: True; of a missing table: False, or 404 ResourceNotFound with fail_not_exist')
    def _():
        for n in names:
            eq(ts.delete_table(n), True, 'delete ' + n)
        eq(ts.delete_table(names[0]), False, 'again')
        http_err(lambda: ts.delete_table(names[0], fail_not_exist=True), 404, 'ResourceNotFound', 'again, fail_not_exist')

    @check('get_table_service_stats and get/set_table_service_properties (a CORS rule kept)')
    def _():
        from azure.cosmosdb.table.common.models import CorsRule
        eq(ts.get_table_service_stats().geo_replication.status, 'live', 'geo-replication')
        ts.set_table_service_properties(cors=[CorsRule(['https://py.example'], ['GET', 'PUT'], max_age_in_seconds=30)])
        rules = ts.get_table_service_properties().cors
        eq([(r.allowed_origins, r.allowed_methods, r.max_age_in_seconds) for r in rules], [(['https://py.example'], ['GET', 'PUT'], 30)], 'CORS')
        ts.set_table_service_properties(cors=[])


# ------------------------------------------------------------------------------------- entities
def entity_checks():
    t = uniq('pyent')
    ts.create_table(t)

    @check('insert_entity: the ETag (from the ETag header); get_entity: the values, Timestamp set by the server')
    def _():
        etag = ts.insert_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'Name': 'Ken', 'Age': 23,
                                    'Timestamp': datetime.datetime(2000, 1, 2, tzinfo=UTC)})
        ok(etag.startswith('W/"'), 'ETag ' + etag)
        eq(Recorder.request().headers.get('Prefer'), 'return-no-content', "the client's Prefer")
        eq(Recorder.response().status_code, 204, 'status')
        e = ts.get_entity(t, 'p', 'a')
        eq((e.Name, value(e.Age)), ('Ken', 23), 'values')
        ok(abs((e.Timestamp - datetime.datetime.now(UTC)).total_seconds()) < 3600, 'Timestamp %s' % e.Timestamp)

    @check('insert_entity of an existing entity: 409 EntityAlreadyExists')
    def _():
        http_err(lambda: ts.insert_entity(t, {'PartitionKey': 'p', 'RowKey': 'a'}), 409, 'EntityAlreadyExists', 'insert')

    @check('get_entity with select; at no and full metadata (accept)')
    def _():
        e = ts.get_entity(t, 'p', 'a', select='Age')
        eq(sorted(props(e)), ['Age'], 'selected')
        for accept in ('application/json;odata=nometadata', 'application/json;odata=fullmetadata'):
            e = ts.get_entity(t, 'p', 'a', accept=accept)
            eq(e.Name, 'Ken', accept)

    @check('get_entity of a missing entity: 404 ResourceNotFound; of a missing table: 404 TableNotFound')
    def _():
        http_err(lambda: ts.get_entity(t, 'p', 'nope'), 404, 'ResourceNotFound', 'entity')
        http_err(lambda: ts.get_entity(uniq('pynone'), 'p', 'a'), 404, 'TableNotFound', 'table')

    @check('update_entity with the ETag a write answered: replaced, a new ETag; the old one: 412')
    def _():
        etag = ts.insert_or_replace_entity(t, {'PartitionKey': 'p', 'RowKey': 'u', 'A': 1, 'B': 2})
        new = ts.update_entity(t, {'PartitionKey': 'p', 'RowKey': 'u', 'C': 3}, if_match=etag)
        ok(new and new != etag, 'ETag %s after %s' % (new, etag))
        eq(sorted(props(ts.get_entity(t, 'p', 'u'))), ['C'], 'after replace')
        http_err(lambda: ts.update_entity(t, {'PartitionKey': 'p', 'RowKey': 'u', 'D': 4}, if_match=etag),
                 412, 'UpdateConditionNotSatisfied', 'stale')

    @check('update_entity with If-Match *: replaced; of a missing entity: 404 ResourceNotFound')
    def _():
        ts.update_entity(t, {'PartitionKey': 'p', 'RowKey': 'u', 'E': 5})
        eq(Recorder.request().headers.get('If-Match'), '*', 'If-Match')
        eq(sorted(props(ts.get_entity(t, 'p', 'u'))), ['E'], 'after replace')
        http_err(lambda: ts.update_entity(t, {'PartitionKey': 'p', 'RowKey': 'nope'}), 404, 'ResourceNotFound', 'missing')

    @check('merge_entity with the ETag a write answered, then with the old one (412), then *')
    def _():
        etag = ts.insert_or_replace_entity(t, {'PartitionKey': 'p', 'RowKey': 'm', 'A': 1})
        new = ts.merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'm', 'B': 2}, if_match=etag)
        eq(Recorder.request().method, 'MERGE', 'verb')
        http_err(lambda: ts.merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'm', 'C': 3}, if_match=etag),
                 412, 'UpdateConditionNotSatisfied', 'stale')
        ts.merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'm', 'C': 3})
        e = ts.get_entity(t, 'p', 'm')
        eq((value(e.A), value(e.B), value(e.C)), (1, 2, 3), 'after merges')
        ok(new != etag, 'a new ETag')
        http_err(lambda: ts.merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'nope', 'X': 1}), 404, 'ResourceNotFound', 'missing')

    @check('insert_or_replace_entity and insert_or_merge_entity: create, then replace / merge (no If-Match)')
    def _():
        ts.insert_or_replace_entity(t, {'PartitionKey': 'p', 'RowKey': 'r1', 'A': 1})
        ok('If-Match' not in Recorder.request().headers, 'If-Match sent')
        ts.insert_or_replace_entity(t, {'PartitionKey': 'p', 'RowKey': 'r1', 'B': 2})
        eq(sorted(props(ts.get_entity(t, 'p', 'r1'))), ['B'], 'replaced')
        ts.insert_or_merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'r2', 'A': 1})
        ts.insert_or_merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'r2', 'B': 2})
        eq(sorted(props(ts.get_entity(t, 'p', 'r2'))), ['A', 'B'], 'merged')

    @check('delete_entity with a stale ETag: 412; with the current one: gone; again: 404 ResourceNotFound')
    def _():
        etag = ts.insert_or_replace_entity(t, {'PartitionKey': 'p', 'RowKey': 'd', 'A': 1})
        cur = ts.merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'd', 'B': 1})
        http_err(lambda: ts.delete_entity(t, 'p', 'd', if_match=etag), 412, 'UpdateConditionNotSatisfied', 'stale')
        ts.delete_entity(t, 'p', 'd', if_match=cur)
        eq(Recorder.response().status_code, 204, 'status')
        http_err(lambda: ts.delete_entity(t, 'p', 'd'), 404, 'ResourceNotFound', 'again')

    @check("keys the client escapes in the URL (quote doubled): O'Brien, space, %, &, +, ü, 😀; empty keys")
    def _():
        for k in ["O'Brien", "it''s", 'a b', '100%', 'x&y=z+w', 'Grüße', 'smile😀', '']:
            ts.insert_entity(t, {'PartitionKey': 'k' + k, 'RowKey': k, 'K': k})
            eq(ts.get_entity(t, 'k' + k, k).K, k, 'read %r' % k)
            ts.merge_entity(t, {'PartitionKey': 'k' + k, 'RowKey': k, 'M': 1})
            ts.delete_entity(t, 'k' + k, k)

    @check("a key with '/', '#', '?' or a control character: 400 InvalidInput")
    def _():
        for k in ['a/b', 'a#b', 'a?b', 'a\x01b']:
            http_err(lambda: ts.insert_entity(t, {'PartitionKey': 'p', 'RowKey': k}), 400, 'InvalidInput', repr(k))

    @check('an Int32 read and merged back stays an Int32 (EntityProperty INT32)')
    def _():
        ts.insert_entity(t, {'PartitionKey': 'p', 'RowKey': 'cnt', 'Count': EntityProperty(EdmType.INT32, 41)})
        e = ts.get_entity(t, 'p', 'cnt')
        eq(e.Count.type, EdmType.INT32, 'read type')
        e.Count = EntityProperty(EdmType.INT32, e.Count.value + 1)
        ts.merge_entity(t, e)
        eq(len(list(ts.query_entities(t, "PartitionKey eq 'p' and Count eq 42"))), 1, 'Int32 literal')
        eq(len(list(ts.query_entities(t, "PartitionKey eq 'p' and Count eq 42L"))), 0, 'Int64 literal')

    ts.delete_table(t)


# ---------------------------------------------------------------------------------------- types
def type_checks():
    t = uniq('pytypes')
    ts.create_table(t)
    long_s = 'ab' * 16384
    guid = uuid.UUID('68260b3f-beab-45e2-b900-33e2b442e724')
    dt = datetime.datetime(2014, 8, 22, 0, 50, 44, tzinfo=UTC)  # the client writes DateTimes to the second
    ent = {
        'PartitionKey': 'types', 'RowKey': 'all',
        'S': 'héllo wörld 😀', 'SEmpty': '', 'SLong': long_s, 'SNumeric': '12345',
        'I32': EntityProperty(EdmType.INT32, 2147483647), 'I32Min': EntityProperty(EdmType.INT32, -2147483648),
        'I64': 9007199254740993, 'I64Max': 2 ** 63 - 1, 'I64Min': -2 ** 63, 'ISmall': 7,
        'D': 1.5, 'DWhole': 5.0, 'DNegZero': -0.0, 'DNaN': float('nan'), 'DInf': float('inf'), 'DNegInf': float('-inf'),
        'DTiny': 5e-324, 'DHuge': sys.float_info.max,
        'B': True, 'BFalse': False,
        'DT': dt, 'DTMin': datetime.datetime(1601, 1, 1, tzinfo=UTC),
        'DTMax': datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC),
        'G': EntityProperty(EdmType.GUID, guid), 'Bin': EntityProperty(EdmType.BINARY, b'\x00\x01\x02\xfe\xff'),
    }

    @check('insert an entity holding every EDM type at its extremes')
    def _():
        ts.insert_entity(t, ent)

    @check('read back: every value and its type')
    def _():
        e = ts.get_entity(t, 'types', 'all')
        eq((e.S, e.SEmpty, e.SLong == long_s, e.SNumeric), ('héllo wörld 😀', '', True, '12345'), 'Strings')
        # the client reads an Int32 as EntityProperty(INT32) and an Int64 as a Python int
        eq([(e[k].type, e[k].value) for k in ('I32', 'I32Min')], [(EdmType.INT32, 2147483647), (EdmType.INT32, -2147483648)], 'Int32')
        eq([e[k] for k in ('I64', 'I64Max', 'I64Min', 'ISmall')], [9007199254740993, 2 ** 63 - 1, -2 ** 63, 7], 'Int64')
        eq((e.D, e.DWhole, e.DTiny, e.DHuge, e.DInf, e.DNegInf), (1.5, 5.0, 5e-324, sys.float_info.max, math.inf, -math.inf), 'Double')
        ok(math.isnan(e.DNaN) and math.copysign(1, e.DNegZero) == -1 and isinstance(e.DWhole, float), 'NaN, -0.0, whole Double %r' % e.DWhole)
        eq((e.B, e.BFalse), (True, False), 'Boolean')
        eq((e.DT, e.DTMin, e.DTMax), (ent['DT'], ent['DTMin'], ent['DTMax']), 'DateTime')
        eq((e.G.type, e.G.value), (EdmType.GUID, str(guid)), 'Guid')
        eq(value(e.Bin), b'\x00\x01\x02\xfe\xff', 'Binary')

    @check('the wire: Python ints as annotated Int64, Int32 unannotated, a whole Double written back 5.0, DateTimes without a fraction')
    def _():
        ts.get_entity(t, 'types', 'all')
        body = Recorder.response().text
        for want in ('"ISmall@odata.type":"Edm.Int64"', '"DWhole":5.0', '"DTMin":"1601-01-01T00:00:00Z"',
                     '"DT":"2014-08-22T00:50:44Z"', '"DTMax":"9999-12-31T23:59:59Z"', '"I32":2147483647,'):
            ok(want in body, '%s not in %s' % (want, body[:300]))

    @check('each value found by a $filter literal of its type (the stored types)')
    def _():
        # (an Int64 literal never equals an Int32 value; an Int32 literal widens to an Int64 one)
        for f in ["S eq 'héllo wörld 😀'", 'I32 eq 2147483647', 'ISmall eq 7', 'I64 eq 9007199254740993L', 'ISmall eq 7L', 'not (I32 eq 2147483647L)',
                  'D eq 1.5', 'DWhole eq 5.0', 'B eq true', "DT eq datetime'2014-08-22T00:50:44Z'",
                  "DTMax eq datetime'9999-12-31T23:59:59Z'", "G eq guid'68260b3f-beab-45e2-b900-33e2b442e724'",
                  "Bin eq X'000102feff'", 'DInf gt 1.0e308', 'DNegInf lt -1.0e308']:
            eq(len(list(ts.query_entities(t, "PartitionKey eq 'types' and (%s)" % f))), 1, f)

    @check('an entity read and written back whole (update_entity) keeps every type')
    def _():
        e = ts.get_entity(t, 'types', 'all')
        del e['etag']
        ts.update_entity(t, e)
        f = "I64 eq 9007199254740993L and I32 eq 2147483647 and G eq guid'68260b3f-beab-45e2-b900-33e2b442e724' and Bin eq X'000102feff'"
        eq(len(list(ts.query_entities(t, f))), 1, 'entities')

    @check('an Int64 out of range: refused by the client; a String over 32 768 units: 400 PropertyValueTooLarge')
    def _():
        raises(lambda: ts.insert_entity(t, {'PartitionKey': 'types', 'RowKey': 'x', 'L': 2 ** 63}), TypeError)
        http_err(lambda: ts.insert_entity(t, {'PartitionKey': 'types', 'RowKey': 'y', 'S': long_s + 'x'}),
                 400, 'PropertyValueTooLarge', 'String')

    ts.delete_table(t)


# -------------------------------------------------------------------------------------- batches
def batch_checks():
    t = uniq('pybatch')
    ts.create_table(t)

    def count(pk):
        return len(list(ts.query_entities(t, "PartitionKey eq '%s'" % pk)))

    @check('a batch of 100 inserts: 202, 100 parts 204 with ETags, all committed')
    def _():
        b = TableBatch()
        for i in range(100):
            b.insert_entity({'PartitionKey': 'hundred', 'RowKey': 'r%03d' % i, 'N': i})
        etags = ts.commit_batch(t, b)
        eq(Recorder.response().status_code, 202, 'status')
        eq(Recorder.response().text.count('HTTP/1.1 204 No Content'), 100, '204 parts')
        ok(len(etags) == 100 and all(e.startswith('W/"') for e in etags), 'ETags')
        eq(count('hundred'), 100, 'entities')

    @check('the client refuses a 101st operation, a second PartitionKey and one entity twice before sending')
    def _():
        b = TableBatch()
        for i in range(100):
            b.insert_entity({'PartitionKey': 'x', 'RowKey': str(i)})
        raises(lambda: b.insert_entity({'PartitionKey': 'x', 'RowKey': '100'}), AzureBatchValidationError)
        b = TableBatch()
        b.insert_entity({'PartitionKey': 'x', 'RowKey': 'a'})
        raises(lambda: b.insert_entity({'PartitionKey': 'y', 'RowKey': 'b'}), AzureBatchValidationError)
        raises(lambda: b.merge_entity({'PartitionKey': 'x', 'RowKey': 'a'}), AzureBatchValidationError)

    @check('every operation in one batch (204 parts): insert, update, merge, both upserts, delete, with write ETags and *')
    def _():
        tags = {rk: ts.insert_entity(t, {'PartitionKey': 'mix', 'RowKey': rk, 'Old': 1, 'Keep': 'k'})
                for rk in ('rep', 'mrg', 'del', 'repstar', 'delstar', 'upm')}
        b = TableBatch()
        b.insert_entity({'PartitionKey': 'mix', 'RowKey': 'ins', 'New': 1})
        b.update_entity({'PartitionKey': 'mix', 'RowKey': 'rep', 'New': 2}, if_match=tags['rep'])
        b.merge_entity({'PartitionKey': 'mix', 'RowKey': 'mrg', 'New': 2}, if_match=tags['mrg'])
        b.insert_or_replace_entity({'PartitionKey': 'mix', 'RowKey': 'upr', 'New': 3})
        b.insert_or_merge_entity({'PartitionKey': 'mix', 'RowKey': 'upm', 'New': 4})
        b.delete_entity('mix', 'del', if_match=tags['del'])
        b.update_entity({'PartitionKey': 'mix', 'RowKey': 'repstar', 'New': 5})
        b.delete_entity('mix', 'delstar')
        etags = ts.commit_batch(t, b)
        eq(Recorder.response().text.count('HTTP/1.1 204 No Content'), 8, '204 parts')
        eq(len(etags), 8, 'results')
        got = lambda rk: props(ts.get_entity(t, 'mix', rk))  # noqa: E731
        eq({k: value(v) for k, v in got('rep').items()}, {'New': 2}, 'update')
        eq({k: value(v) for k, v in got('mrg').items()}, {'Old': 1, 'Keep': 'k', 'New': 2}, 'merge')
        eq({k: value(v) for k, v in got('upm').items()}, {'Old': 1, 'Keep': 'k', 'New': 4}, 'insert or merge')
        eq(value(got('upr')['New']), 3, 'insert or replace')
        eq({k: value(v) for k, v in got('repstar').items()}, {'New': 5}, 'update *')
        for rk in ('del', 'delstar'):
            http_err(lambda: ts.get_entity(t, 'mix', rk), 404, 'ResourceNotFound', rk + ' deleted')

    @check('a failing batch (operation 2 inserts an existing entity): 409 EntityAlreadyExists, the message starts "2:", nothing applied')
    def _():
        ts.insert_entity(t, {'PartitionKey': 'fail', 'RowKey': 'exists'})
        b = TableBatch()
        b.insert_entity({'PartitionKey': 'fail', 'RowKey': 'n0'})
        b.insert_or_merge_entity({'PartitionKey': 'fail', 'RowKey': 'n1'})
        b.insert_entity({'PartitionKey': 'fail', 'RowKey': 'exists'})
        e = http_err(lambda: ts.commit_batch(t, b), 409, 'EntityAlreadyExists', 'commit')
        ok(str(e).startswith('2:'), 'message %s' % str(e)[:100])
        eq(count('fail'), 1, 'entities')

    @check('a failing batch (a stale ETag): 412 UpdateConditionNotSatisfied; (a missing entity): 404 ResourceNotFound')
    def _():
        etag = ts.insert_or_replace_entity(t, {'PartitionKey': 'fail', 'RowKey': 'exists', 'V': 1})
        ts.merge_entity(t, {'PartitionKey': 'fail', 'RowKey': 'exists', 'V': 2})
        b = TableBatch()
        b.insert_entity({'PartitionKey': 'fail', 'RowKey': 'm0'})
        b.merge_entity({'PartitionKey': 'fail', 'RowKey': 'exists', 'V': 3}, if_match=etag)
        http_err(lambda: ts.commit_batch(t, b), 412, 'UpdateConditionNotSatisfied', 'stale')
        b = TableBatch()
        b.delete_entity('fail', 'missing')
        http_err(lambda: ts.commit_batch(t, b), 404, 'ResourceNotFound', 'missing')
        eq(count('fail'), 1, 'entities')

    @check('a batch on a missing table: 404 TableNotFound')
    def _():
        b = TableBatch()
        b.insert_entity({'PartitionKey': 'p', 'RowKey': 'a'})
        http_err(lambda: ts.commit_batch(uniq('pynone'), b), 404, 'TableNotFound', 'commit')

    @check('an empty batch: 202 with an empty changeset response, no results')
    def _():
        eq(ts.commit_batch(t, TableBatch()), [], 'results')
        eq(Recorder.response().status_code, 202, 'status')

    ts.delete_table(t)


# -------------------------------------------------------------------------------------- queries
def query_checks():
    t = uniq('pyquery')
    ts.create_table(t)
    for pk in ('pa', 'pb', 'pc'):
        b = TableBatch()
        for i in range(10):
            b.insert_entity({'PartitionKey': pk, 'RowKey': 'r%02d' % i, 'N': EntityProperty(EdmType.INT32, i), 'Other': 'o' + pk})
        ts.commit_batch(t, b)
    want = ['%s/r%02d' % (pk, i) for pk in ('pa', 'pb', 'pc') for i in range(10)]

    def pages(filter=None, select=None, n=None, accept='application/json;odata=minimalmetadata'):
        keys, sizes, marker, all_ = [], [], None, []
        while True:
            page = ts.query_entities(t, filter=filter, select=select, num_results=n, marker=marker, accept=accept)
            items = list(page)
            sizes.append(len(items))
            keys += ['%s/%s' % (e.get('PartitionKey'), e.get('RowKey')) for e in items]
            all_ += items
            marker = page.next_marker
            if not n or not marker or len(sizes) > 50:
                return keys, sizes, all_

    @check('num_results 7: five pages (7,7,7,7,2) across partitions through next_marker, every entity once, in key order')
    def _():
        keys, sizes, _ = pages(n=7)
        eq(sizes, [7, 7, 7, 7, 2], 'page sizes')
        eq(keys, want, 'keys')

    @check('no num_results: every entity (the client follows the markers itself)')
    def _():
        eq(['%s/%s' % (e.PartitionKey, e.RowKey) for e in ts.query_entities(t)], want, 'keys')

    @check('filter PartitionKey eq and N ge: five; or across partitions: in key order; inverted range: empty')
    def _():
        eq(pages("PartitionKey eq 'pb' and N ge 5")[0], want[15:20], 'and')
        eq(pages("RowKey eq 'r07' or RowKey eq 'r03'")[0], ['pa/r03', 'pa/r07', 'pb/r03', 'pb/r07', 'pc/r03', 'pc/r07'], 'or')
        eq(pages("PartitionKey eq 'pc' and RowKey ge 'r05' and RowKey lt 'r02'")[0], [], 'inverted')

    @check('filter N lt 8 at no metadata, 5 a page: 24 entities over five pages')
    def _():
        keys, sizes, _ = pages('N lt 8', n=5, accept='application/json;odata=nometadata')
        eq((len(keys), len(sizes)), (24, 5), 'entities and pages')

    @check('select N, 4 a page: only N on each of 8 pages')
    def _():
        keys, sizes, all_ = pages(select='N', n=4)
        eq(len(sizes), 8, 'pages')
        ok(all(sorted(props(e)) == ['N'] for e in all_), 'properties %r' % [sorted(props(e)) for e in all_][:3])

    @check('a malformed filter: 400 InvalidInput')
    def _():
        http_err(lambda: list(ts.query_entities(t, 'PartitionKey eq pa')), 400, 'InvalidInput', 'unquoted')
        http_err(lambda: list(ts.query_entities(t, '(N eq 1) und (N eq 2)')), 400, 'InvalidInput', 'und')

    ts.delete_table(t)


# ------------------------------------------------------------------------------------------ SAS
def sas_checks():
    t = uniq('pysas')
    ts.create_table(t)
    for pk in 'abc':
        for rk in '123':
            ts.insert_entity(t, {'PartitionKey': pk, 'RowKey': rk, 'V': 1})
    hour = datetime.datetime.now(UTC) + datetime.timedelta(hours=1)

    def tsas(**kw):
        kw.setdefault('expiry', hour)
        return service(ts.generate_table_shared_access_signature(t, **kw))

    @check('table SAS raud: query, insert, merge, delete, batch')
    def _():
        s = tsas(permission=TablePermissions.QUERY + TablePermissions.ADD + TablePermissions.UPDATE + TablePermissions.DELETE)
        eq(len(list(s.query_entities(t))), 9, 'entities')
        s.insert_entity(t, {'PartitionKey': 'a', 'RowKey': '4'})
        s.merge_entity(t, {'PartitionKey': 'a', 'RowKey': '4', 'M': 1})
        s.delete_entity(t, 'a', '4')
        b = TableBatch()
        b.insert_or_replace_entity({'PartitionKey': 'a', 'RowKey': '5'})
        b.delete_entity('a', '1')
        eq(len(s.commit_batch(t, b)), 2, 'batch results')
        ts.insert_entity(t, {'PartitionKey': 'a', 'RowKey': '1', 'V': 1})

    @check('table SAS with query only: insert 403 AuthorizationPermissionMismatch')
    def _():
        s = tsas(permission=TablePermissions.QUERY)
        s.get_entity(t, 'a', '1')
        http_err(lambda: s.insert_entity(t, {'PartitionKey': 'a', 'RowKey': '9'}), 403, 'AuthorizationPermissionMismatch', 'insert')

    @check('table SAS with a key range (start_pk b, start_rk 2, end_pk c, end_rk 1): pages stay inside, outside is 403 AuthorizationFailure')
    def _():
        s = tsas(permission=TablePermissions.QUERY + TablePermissions.ADD, start_pk='b', start_rk='2', end_pk='c', end_rk='1')
        keys, marker = [], None
        while True:
            page = s.query_entities(t, num_results=1, marker=marker)
            keys += ['%s/%s' % (e.PartitionKey, e.RowKey) for e in page]
            marker = page.next_marker
            if not marker or len(keys) > 20:
                break
        eq(keys, ['b/2', 'b/3', 'c/1'], 'keys')
        http_err(lambda: s.get_entity(t, 'a', '1'), 403, 'AuthorizationFailure', 'read outside')
        http_err(lambda: s.insert_entity(t, {'PartitionKey': 'c', 'RowKey': '9'}), 403, 'AuthorizationFailure', 'insert outside')

    @check('table SAS expired, from another address, or https only: 403')
    def _():
        s = tsas(permission=TablePermissions.QUERY, expiry=datetime.datetime.now(UTC) - datetime.timedelta(minutes=1))
        http_err(lambda: s.get_entity(t, 'a', '1'), 403, 'AuthenticationFailed', 'expired')
        s = tsas(permission=TablePermissions.QUERY, ip='10.9.8.7')
        http_err(lambda: s.get_entity(t, 'a', '1'), 403, 'AuthorizationSourceIPMismatch', 'address')
        s = tsas(permission=TablePermissions.QUERY, protocol='https')
        http_err(lambda: s.get_entity(t, 'a', '1'), 403, 'AuthorizationProtocolMismatch', 'https only')

    @check('table SAS naming a stored access policy (set_table_acl): its permissions apply; removed: 403')
    def _():
        ts.set_table_acl(t, {'readers': AccessPolicy(permission=TablePermissions.QUERY, expiry=hour)})
        s = service(ts.generate_table_shared_access_signature(t, id='readers'))
        s.get_entity(t, 'a', '1')
        http_err(lambda: s.insert_entity(t, {'PartitionKey': 'a', 'RowKey': '9'}), 403, 'AuthorizationPermissionMismatch', 'insert')
        ts.set_table_acl(t, {})
        http_err(lambda: s.get_entity(t, 'a', '1'), 403, 'AuthenticationFailed', 'after removal')

    @check('account SAS (srt=sco, every permission): tables, entities, a batch')
    def _():
        s = service(ts.generate_account_shared_access_signature(
            ResourceTypes.SERVICE + ResourceTypes.CONTAINER + ResourceTypes.OBJECT,
            AccountPermissions.READ + AccountPermissions.WRITE + AccountPermissions.DELETE + AccountPermissions.LIST +
            AccountPermissions.ADD + AccountPermissions.CREATE + AccountPermissions.UPDATE, hour))
        n = uniq('pyacct')
        eq(s.create_table(n), True, 'create table')
        s.insert_entity(n, {'PartitionKey': 'p', 'RowKey': '1'})
        b = TableBatch()
        b.insert_entity({'PartitionKey': 'p', 'RowKey': '2'})
        b.merge_entity({'PartitionKey': 'p', 'RowKey': '1', 'M': 1})
        s.commit_batch(n, b)
        eq(len(list(s.query_entities(n))), 2, 'entities')
        eq(s.delete_table(n), True, 'delete table')

    @check('account SAS srt=c: entities 403 AuthorizationResourceTypeMismatch; read-only: insert 403')
    def _():
        s = service(ts.generate_account_shared_access_signature(ResourceTypes.CONTAINER, AccountPermissions.READ + AccountPermissions.LIST, hour))
        list(s.list_tables())
        http_err(lambda: list(s.query_entities(t)), 403, 'AuthorizationResourceTypeMismatch', 'query')
        s = service(ts.generate_account_shared_access_signature(ResourceTypes.OBJECT, AccountPermissions.READ, hour))
        s.get_entity(t, 'a', '1')
        http_err(lambda: s.insert_entity(t, {'PartitionKey': 'a', 'RowKey': '9'}), 403, 'AuthorizationPermissionMismatch', 'insert')

    ts.delete_table(t)


# ------------------------------------------------------------------------------------------ ACL
def acl_checks():
    t = uniq('pyacl')
    ts.create_table(t)
    start = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    expiry = datetime.datetime(2099, 6, 7, 8, 9, 10, tzinfo=UTC)

    @check('set_table_acl of three policies (one without a policy), get_table_acl: the same, in the order set')
    def _():
        ts.set_table_acl(t, {'zeta': AccessPolicy(permission='r', expiry=expiry, start=start),
                             'alpha': AccessPolicy(permission='raud', expiry=expiry), 'bare': AccessPolicy()})
        got = ts.get_table_acl(t)
        eq(list(got), ['zeta', 'alpha', 'bare'], 'order')
        eq((got['zeta'].permission, got['zeta'].start, got['zeta'].expiry), ('r', start, expiry), 'zeta')
        eq(got['alpha'].permission, 'raud', 'alpha')
        eq((got['bare'].permission, got['bare'].start, got['bare'].expiry), (None, None, None), 'bare')

    @check('set_table_acl with none: none; with six: refused by the client')
    def _():
        ts.set_table_acl(t, {})
        eq(ts.get_table_acl(t), {}, 'identifiers')
        raises(lambda: ts.set_table_acl(t, {str(i): AccessPolicy(permission='r', expiry=expiry) for i in range(6)}))

    @check('get_table_acl of a missing table: 404 TableNotFound')
    def _():
        http_err(lambda: ts.get_table_acl(uniq('pynone')), 404, 'TableNotFound', 'get')

    ts.delete_table(t)


# ------------------------------------------------------------------ ETags and property order (issue 27)
def etag_order_checks():
    """Issue 27.3: the ETag the client builds from a read's Timestamp is the entity's ETag, so
    conditional operations after a read and batch results match; 27.10: properties in the order
    written (the client keeps the JSON's order in its dict). 27.5 cannot be shown: the client
    refuses an entity without PartitionKey or RowKey before sending."""
    t = uniq('pyetag')
    ts.create_table(t)

    @check('(issue 27.3): the ETag a write answers is the one the client builds from the next read')
    def _():
        for write in (lambda: ts.insert_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'V': 1}),
                      lambda: ts.update_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'V': 2}),
                      lambda: ts.merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'W': 2}),
                      lambda: ts.insert_or_replace_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'V': 3}),
                      lambda: ts.insert_or_merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'W': 3})):
            etag = write()
            eq(etag, ts.get_entity(t, 'p', 'a').etag, 'ETag')

    @check('(issue 27.3): update, merge and delete with the ETag of a read (get_entity and query_entities)')
    def _():
        e = ts.get_entity(t, 'p', 'a')
        ts.update_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'V': 4}, if_match=e.etag)
        http_err(lambda: ts.update_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'V': 5}, if_match=e.etag),
                 412, 'UpdateConditionNotSatisfied', 'the old ETag again')
        e = ts.get_entity(t, 'p', 'a')
        ts.merge_entity(t, {'PartitionKey': 'p', 'RowKey': 'a', 'X': 1}, if_match=e.etag)
        e = list(ts.query_entities(t, "RowKey eq 'a'"))[0]
        ts.delete_entity(t, 'p', 'a', if_match=e.etag)

    @check('(issue 27.3): a batch with the ETags of reads; its results are the entities\' ETags')
    def _():
        for rk in ('b1', 'b2'):
            ts.insert_entity(t, {'PartitionKey': 'p', 'RowKey': rk, 'V': 1})
        b = TableBatch()
        b.update_entity({'PartitionKey': 'p', 'RowKey': 'b1', 'V': 2}, if_match=ts.get_entity(t, 'p', 'b1').etag)
        b.merge_entity({'PartitionKey': 'p', 'RowKey': 'b2', 'V': 2}, if_match=ts.get_entity(t, 'p', 'b2').etag)
        b.insert_entity({'PartitionKey': 'p', 'RowKey': 'b3'})
        etags = ts.commit_batch(t, b)
        eq(etags, [ts.get_entity(t, 'p', rk).etag for rk in ('b1', 'b2', 'b3')], 'batch ETags')

    @check('(issue 27.10): properties in the order written; a merge appends; a replace takes the request\'s order')
    def _():
        ts.insert_entity(t, {'PartitionKey': 'o', 'RowKey': '1', 'Zeta': 1, 'Alpha': 2, 'Mid': 3})
        eq(list(props(ts.get_entity(t, 'o', '1'))), ['Zeta', 'Alpha', 'Mid'], 'insert')
        ts.merge_entity(t, {'PartitionKey': 'o', 'RowKey': '1', 'Beta': 4, 'Alpha': 5})
        eq(list(props(ts.get_entity(t, 'o', '1'))), ['Zeta', 'Alpha', 'Mid', 'Beta'], 'merge')
        ts.update_entity(t, {'PartitionKey': 'o', 'RowKey': '1', 'Mid': 1, 'Zeta': 2})
        eq([list(props(e)) for e in ts.query_entities(t, "PartitionKey eq 'o'")], [['Mid', 'Zeta']], 'replace, in a page')

    ts.delete_table(t)


def crash_read(spec):
    tbl, pk, rk = spec.split(',', 2)

    @check('(issue 27.11): a point read right after the owning node crashed: 503 ServerBusy')
    def _():
        http_err(lambda: ts.get_entity(tbl, pk, rk), 503, 'ServerBusy', 'read')


if __name__ == '__main__':
    run(A, crash_read, [table_checks, entity_checks, type_checks, batch_checks, query_checks, sas_checks, acl_checks,
                        etag_order_checks])
