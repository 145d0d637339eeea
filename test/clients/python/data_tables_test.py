"""test/clients/python/data_tables_test.py - Debian's azure-data-tables (12.4.2, from python3-azure:
TableServiceClient, TableClient) against tablestore-gateway: tables, every entity operation, every
EDM type, transactions, queries by page with continuation tokens, table and account SAS, access
policies; each check written from the service's documentation and the client's documented
behaviour. One line per check, "N passed, N failed"; exit 1 on a failure.

    /usr/bin/python3 data_tables_test.py --port N [--crash-read t,pk,rk]
"""
import datetime
import logging
import math
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import DEV_ACCOUNT, DEV_KEY, Fail, Recorder, check, eq, ok, parse_args, raises, run  # noqa: E402

from azure.core import MatchConditions  # noqa: E402
from azure.core.credentials import AzureNamedKeyCredential, AzureSasCredential  # noqa: E402
from azure.core.exceptions import HttpResponseError  # noqa: E402
from azure.data.tables import (AccountSasPermissions, EdmType, EntityProperty, ResourceTypes, TableAccessPolicy,  # noqa: E402
                               TableClient, TableCorsRule, TableSasPermissions, TableServiceClient,
                               TableTransactionError, UpdateMode, generate_account_sas, generate_table_sas)

A = parse_args(__doc__.split('\n')[0])
logging.getLogger('azure').setLevel(logging.CRITICAL)
Recorder.install()
UTC = datetime.timezone.utc
ENDPOINT = 'http://127.0.0.1:%d/%s' % (A.port, DEV_ACCOUNT)
CS = 'DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;TableEndpoint=%s;' % (DEV_ACCOUNT, DEV_KEY, ENDPOINT)
CRED = AzureNamedKeyCredential(DEV_ACCOUNT, DEV_KEY)
NO_RETRY = {'retry_total': 0}  # every answer judged as it came
svc = TableServiceClient.from_connection_string(CS, **NO_RETRY)
IF_NOT_MODIFIED = MatchConditions.IfNotModified


def uniq(prefix):
    return prefix + uuid.uuid4().hex[:8]


def http_err(fn, status, code, what):
    """fn() fails with this status and service error code."""
    try:
        fn()
    except HttpResponseError as e:
        got = getattr(e, 'error_code', None) or (e.response.headers.get('x-ms-error-code') if e.response is not None else None)
        if e.status_code != status or got != code:
            raise Fail('%s: got %s %s (%s), want %d %s' % (what, e.status_code, got, str(e).split('\n')[0][:200], status, code))
        return e
    raise Fail('%s: succeeded, want %d %s' % (what, status, code))


def props(e):
    return {k: v for k, v in e.items() if k not in ('PartitionKey', 'RowKey')}


def sas_table(table, sas):
    return TableClient(ENDPOINT, table, credential=AzureSasCredential(sas), **NO_RETRY)


# --------------------------------------------------------------------------------------- tables
def table_checks():
    prefix = uniq('dttab')
    names = [prefix + s for s in 'abcde']

    @check('create_table: a TableClient; again, other letter case: 409 TableAlreadyExists; create_table_if_not_exists: no error')
    def _():
        for n in names:
            eq(svc.create_table(n).table_name, n, 'create ' + n)
        http_err(lambda: svc.create_table(names[0].upper()), 409, 'TableAlreadyExists', 'again')
        eq(svc.create_table_if_not_exists(names[0]).table_name, names[0], 'if not exists')

    @check('query_tables with parameters, 2 a page: three pages by continuation token, in order')
    def _():
        pager = svc.query_tables('TableName ge @lo and TableName lt @hi', parameters={'lo': prefix, 'hi': prefix + 'z'},
                                 results_per_page=2).by_page()
        got, pages = [], 0
        for page in pager:
            pages += 1
            got += [t.name for t in page]
        eq((pages, got), (3, names), 'pages and tables')

    @check('list_tables lists this run\'s tables')
    def _():
        seen = {t.name for t in svc.list_tables(results_per_page=50)}
        ok(set(names) <= seen, 'missing %r' % (set(names) - seen))

    @check('delete_table: 204; of a missing table: no error (the client hides its 404 ResourceNotFound)')
    def _():
        for n in names:
            svc.delete_table(n)
        eq(Recorder.response().status_code, 204, 'status')
        svc.delete_table(names[0])
        eq((Recorder.response().status_code, Recorder.response().headers.get('x-ms-error-code')), (404, 'ResourceNotFound'), 'answer')

    # (not get_service_stats: with a path-style endpoint the client asks
    # /devstoreaccount1-secondary/devstoreaccount1/?comp=stats, its own bug)
    @check('set/get_service_properties: a CORS rule kept')
    def _():
        svc.set_service_properties(cors=[TableCorsRule(['https://dt.example'], ['GET', 'MERGE'], max_age_in_seconds=20)])
        rules = svc.get_service_properties()['cors']
        eq([(r.allowed_origins, r.allowed_methods, r.max_age_in_seconds) for r in rules], [(['https://dt.example'], ['GET', 'MERGE'], 20)], 'CORS')
        svc.set_service_properties(cors=[])


# ------------------------------------------------------------------------------------- entities
def entity_checks():
    t = uniq('dtent')
    tc = svc.create_table(t)

    @check('create_entity: 201 with the entity, the ETag; get_entity: values and Timestamp')
    def _():
        md = tc.create_entity({'PartitionKey': 'p', 'RowKey': 'a', 'Name': 'Ken', 'Age': 23})
        eq((Recorder.response().status_code, Recorder.response().json().get('Name')), (201, 'Ken'), 'status, echoed entity')
        ok(md['etag'].startswith('W/"'), 'ETag %r' % md['etag'])
        e = tc.get_entity('p', 'a')
        eq((e['Name'], e['Age']), ('Ken', 23), 'values')
        eq(e.metadata['etag'], md['etag'], 'ETag of the read')
        ok(abs((e.metadata['timestamp'] - datetime.datetime.now(UTC)).total_seconds()) < 3600, 'Timestamp')

    @check('create_entity of an existing entity: 409 EntityAlreadyExists')
    def _():
        http_err(lambda: tc.create_entity({'PartitionKey': 'p', 'RowKey': 'a'}), 409, 'EntityAlreadyExists', 'create')

    @check('get_entity with select; of a missing entity: 404 ResourceNotFound; of a missing table: 404 TableNotFound')
    def _():
        eq(props(tc.get_entity('p', 'a', select=['Age'])), {'Age': 23}, 'selected')
        http_err(lambda: tc.get_entity('p', 'nope'), 404, 'ResourceNotFound', 'entity')
        http_err(lambda: svc.get_table_client(uniq('dtnone')).get_entity('p', 'a'), 404, 'TableNotFound', 'table')

    @check('update_entity REPLACE with the ETag of a read: replaced, a new ETag; that ETag again: 412')
    def _():
        e = tc.get_entity('p', 'a')
        md = tc.update_entity({'PartitionKey': 'p', 'RowKey': 'a', 'Name': 'Ken K'}, mode=UpdateMode.REPLACE,
                              etag=e.metadata['etag'], match_condition=IF_NOT_MODIFIED)
        eq(Recorder.request().headers.get('If-Match'), e.metadata['etag'], 'If-Match')
        ok(md['etag'] != e.metadata['etag'], 'a new ETag')
        eq(props(tc.get_entity('p', 'a')), {'Name': 'Ken K'}, 'after replace')
        http_err(lambda: tc.update_entity({'PartitionKey': 'p', 'RowKey': 'a', 'Name': 'lost'}, mode=UpdateMode.REPLACE,
                                          etag=e.metadata['etag'], match_condition=IF_NOT_MODIFIED),
                 412, 'UpdateConditionNotSatisfied', 'stale')

    @check('update_entity MERGE with the ETag of a read; stale: 412; unconditional (If-Match *); missing: 404')
    def _():
        e = tc.get_entity('p', 'a')
        tc.update_entity({'PartitionKey': 'p', 'RowKey': 'a', 'Age': 47}, mode=UpdateMode.MERGE, etag=e.metadata['etag'],
                         match_condition=IF_NOT_MODIFIED)
        eq(Recorder.request().method, 'PATCH', 'verb')
        http_err(lambda: tc.update_entity({'PartitionKey': 'p', 'RowKey': 'a', 'X': 1}, mode=UpdateMode.MERGE,
                                          etag=e.metadata['etag'], match_condition=IF_NOT_MODIFIED), 412, 'UpdateConditionNotSatisfied', 'stale')
        tc.update_entity({'PartitionKey': 'p', 'RowKey': 'a', 'City': 'Oslo'}, mode=UpdateMode.MERGE)
        eq(Recorder.request().headers.get('If-Match'), '*', 'If-Match')
        eq(sorted(props(tc.get_entity('p', 'a'))), ['Age', 'City', 'Name'], 'after merges')
        http_err(lambda: tc.update_entity({'PartitionKey': 'p', 'RowKey': 'nope', 'X': 1}), 404, 'ResourceNotFound', 'missing')

    @check('upsert_entity REPLACE and MERGE: create, then replace / merge (no If-Match)')
    def _():
        tc.upsert_entity({'PartitionKey': 'p', 'RowKey': 'u', 'A': 1}, mode=UpdateMode.REPLACE)
        ok('If-Match' not in Recorder.request().headers, 'If-Match sent')
        tc.upsert_entity({'PartitionKey': 'p', 'RowKey': 'u', 'B': 2}, mode=UpdateMode.REPLACE)
        eq(props(tc.get_entity('p', 'u')), {'B': 2}, 'replaced')
        tc.upsert_entity({'PartitionKey': 'p', 'RowKey': 'm', 'A': 1}, mode=UpdateMode.MERGE)
        tc.upsert_entity({'PartitionKey': 'p', 'RowKey': 'm', 'B': 2}, mode=UpdateMode.MERGE)
        eq(sorted(props(tc.get_entity('p', 'm'))), ['A', 'B'], 'merged')

    @check('delete_entity with a stale ETag: 412; with the read ETag: 204, gone; again: 404 (which the client hides)')
    def _():
        e = tc.get_entity('p', 'm')
        tc.update_entity({'PartitionKey': 'p', 'RowKey': 'm', 'C': 3}, mode=UpdateMode.MERGE)
        http_err(lambda: tc.delete_entity('p', 'm', etag=e.metadata['etag'], match_condition=IF_NOT_MODIFIED),
                 412, 'UpdateConditionNotSatisfied', 'stale')
        tc.delete_entity(tc.get_entity('p', 'm'), match_condition=IF_NOT_MODIFIED)
        eq(Recorder.response().status_code, 204, 'status')
        tc.delete_entity('p', 'm')
        eq((Recorder.response().status_code, Recorder.response().headers.get('x-ms-error-code')), (404, 'ResourceNotFound'), 'again')

    @check("keys the client escapes (quote doubled): O'Brien, space, %, &, +, ü, 😀; empty keys")
    def _():
        for k in ["O'Brien", "it''s", 'a b', '100%', 'x&y=z+w', 'Grüße', 'smile😀', '']:
            tc.create_entity({'PartitionKey': 'k' + k, 'RowKey': k, 'K': k})
            eq(tc.get_entity('k' + k, k)['K'], k, 'read %r' % k)
            tc.update_entity({'PartitionKey': 'k' + k, 'RowKey': k, 'M': 1})
            tc.delete_entity('k' + k, k)
            eq(Recorder.response().status_code, 204, 'delete %r' % k)

    @check("a key with '/', '#', '?' or a control character: 400 InvalidInput")
    def _():
        for k in ['a/b', 'a#b', 'a?b', 'a\x01b']:
            http_err(lambda: tc.create_entity({'PartitionKey': 'p', 'RowKey': k}), 400, 'InvalidInput', repr(k))

    @check('an Int32 read, incremented and merged back stays an Int32')
    def _():
        tc.create_entity({'PartitionKey': 'p', 'RowKey': 'cnt', 'Count': 41})
        e = tc.get_entity('p', 'cnt')
        e['Count'] += 1
        tc.update_entity(e, mode=UpdateMode.MERGE)
        eq(len(list(tc.query_entities("PartitionKey eq 'p' and Count eq 42"))), 1, 'Int32 literal')
        eq(len(list(tc.query_entities("PartitionKey eq 'p' and Count eq 42L"))), 0, 'Int64 literal')

    svc.delete_table(t)


# ---------------------------------------------------------------------------------------- types
def type_checks():
    t = uniq('dttypes')
    tc = svc.create_table(t)
    long_s = 'ab' * 16384
    guid = uuid.UUID('68260b3f-beab-45e2-b900-33e2b442e724')
    ent = {
        'PartitionKey': 'types', 'RowKey': 'all',
        'S': 'héllo wörld 😀', 'SEmpty': '', 'SLong': long_s, 'SNumeric': '12345',
        'I32': 2147483647, 'I32Min': -2147483648,
        'I64': EntityProperty(9007199254740993, EdmType.INT64), 'I64Max': EntityProperty(2 ** 63 - 1, EdmType.INT64),
        'I64Min': EntityProperty(-2 ** 63, EdmType.INT64),
        'D': 1.5, 'DWhole': 5.0, 'DNegZero': -0.0, 'DNaN': float('nan'), 'DInf': float('inf'), 'DNegInf': float('-inf'),
        'DTiny': 5e-324, 'DHuge': sys.float_info.max,
        'B': True, 'BFalse': False,
        'DT': datetime.datetime(2014, 8, 22, 0, 50, 44, 123456, tzinfo=UTC),
        'DT7': EntityProperty('2014-08-22T00:50:44.1234567Z', EdmType.DATETIME),
        'DTMin': EntityProperty('1601-01-01T00:00:00Z', EdmType.DATETIME),
        'DTMax': EntityProperty('9999-12-31T23:59:59.9999999Z', EdmType.DATETIME),
        'G': guid, 'Bin': b'\x00\x01\x02\xfe\xff', 'BinEmpty': b'',
    }

    @check('create an entity holding every EDM type at its extremes')
    def _():
        tc.create_entity(ent)

    @check('read back: every value and its type')
    def _():
        e = tc.get_entity('types', 'all')
        eq((e['S'], e['SEmpty'], e['SLong'] == long_s, e['SNumeric']), ('héllo wörld 😀', '', True, '12345'), 'Strings')
        eq((e['I32'], e['I32Min']), (2147483647, -2147483648), 'Int32')
        eq([e[k] for k in ('I64', 'I64Max', 'I64Min')], [EntityProperty(9007199254740993, EdmType.INT64),
           EntityProperty(2 ** 63 - 1, EdmType.INT64), EntityProperty(-2 ** 63, EdmType.INT64)], 'Int64')
        eq((e['D'], e['DWhole'], e['DTiny'], e['DHuge'], e['DInf'], e['DNegInf']), (1.5, 5.0, 5e-324, sys.float_info.max, math.inf, -math.inf), 'Double')
        ok(math.isnan(e['DNaN']) and math.copysign(1, e['DNegZero']) == -1 and isinstance(e['DWhole'], float), 'NaN, -0.0, 5.0')
        eq((e['B'], e['BFalse']), (True, False), 'Boolean')
        eq(e['DT'], ent['DT'], 'DateTime')
        eq([e[k].tables_service_value for k in ('DT', 'DT7', 'DTMin', 'DTMax')],
           ['2014-08-22T00:50:44.123456Z', '2014-08-22T00:50:44.1234567Z', '1601-01-01T00:00:00Z', '9999-12-31T23:59:59.9999999Z'],
           'DateTime texts (100 ns kept)')
        eq((e['G'], e['Bin'], e['BinEmpty']), (guid, b'\x00\x01\x02\xfe\xff', b''), 'Guid, Binary')

    @check('each value found by a $filter literal of its type, with parameters (the stored types)')
    def _():
        for f, p in [('S eq @v', 'héllo wörld 😀'), ('I32 eq @v', 2147483647), ('I64 eq @v', 9007199254740993),
                     ('D eq @v', 1.5), ('DWhole eq 5.0', None), ('B eq @v', True), ('DT eq @v', ent['DT']),
                     ("DT7 eq datetime'2014-08-22T00:50:44.1234567Z'", None), ("DTMax eq datetime'9999-12-31T23:59:59.9999999Z'", None),
                     ('G eq @v', guid), ('Bin eq @v', b'\x00\x01\x02\xfe\xff'), ('DInf gt 1.0e308', None),
                     ('not (I32 eq 2147483647L)', None)]:
            params = {'v': p} if p is not None else None
            eq(len(list(tc.query_entities("PartitionKey eq 'types' and %s" % f, parameters=params))), 1, f)

    @check('an entity read and written back whole (update_entity REPLACE) keeps every type and the 100 ns')
    def _():
        tc.update_entity(tc.get_entity('types', 'all'), mode=UpdateMode.REPLACE)
        f = ("I64 eq 9007199254740993L and I32 eq 2147483647 and DT7 eq datetime'2014-08-22T00:50:44.1234567Z' and "
             "G eq guid'68260b3f-beab-45e2-b900-33e2b442e724' and Bin eq X'000102feff' and DNegInf lt 0.0")
        eq(len(list(tc.query_entities(f))), 1, 'entities')

    @check('a String over 32 768 units: 400 PropertyValueTooLarge; an Int32 out of range: refused by the client')
    def _():
        http_err(lambda: tc.create_entity({'PartitionKey': 'types', 'RowKey': 'y', 'S': long_s + 'x'}), 400, 'PropertyValueTooLarge', 'String')
        raises(lambda: tc.create_entity({'PartitionKey': 'types', 'RowKey': 'z', 'I': 2 ** 31}), TypeError)

    svc.delete_table(t)


# ---------------------------------------------------------------------------------- transactions
def batch_checks():
    t = uniq('dtbatch')
    tc = svc.create_table(t)

    def count(pk):
        return len(list(tc.query_entities("PartitionKey eq @pk", parameters={'pk': pk})))

    @check('a transaction of 100 creates: 202, 100 parts 204, every ETag, all committed')
    def _():
        res = tc.submit_transaction([('create', {'PartitionKey': 'hundred', 'RowKey': 'r%03d' % i, 'N': i}) for i in range(100)])
        eq(Recorder.response().status_code, 202, 'status')
        ok(len(res) == 100 and all(r['etag'].startswith('W/"') for r in res), 'results')
        eq(count('hundred'), 100, 'entities')

    @check('every operation in one transaction: create, update REPLACE/MERGE with read ETags and *, both upserts, delete')
    def _():
        for rk in ('rep', 'mrg', 'del', 'repstar', 'delstar', 'upm'):
            tc.create_entity({'PartitionKey': 'mix', 'RowKey': rk, 'Old': 1, 'Keep': 'k'})
        tag = lambda rk: tc.get_entity('mix', rk).metadata['etag']  # noqa: E731
        ops = [('create', {'PartitionKey': 'mix', 'RowKey': 'ins', 'New': 1}),
               ('update', {'PartitionKey': 'mix', 'RowKey': 'rep', 'New': 2}, {'mode': 'replace', 'etag': tag('rep'), 'match_condition': IF_NOT_MODIFIED}),
               ('update', {'PartitionKey': 'mix', 'RowKey': 'mrg', 'New': 2}, {'mode': 'merge', 'etag': tag('mrg'), 'match_condition': IF_NOT_MODIFIED}),
               ('upsert', {'PartitionKey': 'mix', 'RowKey': 'upr', 'New': 3}, {'mode': 'replace'}),
               ('upsert', {'PartitionKey': 'mix', 'RowKey': 'upm', 'New': 4}, {'mode': 'merge'}),
               ('delete', {'PartitionKey': 'mix', 'RowKey': 'del'}, {'etag': tag('del'), 'match_condition': IF_NOT_MODIFIED}),
               ('update', {'PartitionKey': 'mix', 'RowKey': 'repstar', 'New': 5}, {'mode': 'replace'}),
               ('delete', {'PartitionKey': 'mix', 'RowKey': 'delstar'})]
        res = tc.submit_transaction(ops)
        eq(len(res), 8, 'results')
        eq(Recorder.response().text.count('HTTP/1.1 204 No Content'), 8, '204 parts')
        get = lambda rk: props(tc.get_entity('mix', rk))  # noqa: E731
        eq((get('ins'), get('rep'), get('mrg'), get('upr'), get('upm'), get('repstar')),
           ({'New': 1}, {'New': 2}, {'Old': 1, 'Keep': 'k', 'New': 2}, {'New': 3}, {'Old': 1, 'Keep': 'k', 'New': 4}, {'New': 5}), 'entities')
        for rk in ('del', 'delstar'):
            http_err(lambda: tc.get_entity('mix', rk), 404, 'ResourceNotFound', rk)

    @check('a failing transaction (operation 2 creates an existing entity): TableTransactionError index 2, 409 EntityAlreadyExists, nothing applied')
    def _():
        tc.create_entity({'PartitionKey': 'fail', 'RowKey': 'exists'})
        try:
            tc.submit_transaction([('create', {'PartitionKey': 'fail', 'RowKey': 'n0'}), ('upsert', {'PartitionKey': 'fail', 'RowKey': 'n1'}),
                                   ('create', {'PartitionKey': 'fail', 'RowKey': 'exists'})])
            raise Fail('succeeded')
        except TableTransactionError as e:
            eq((e.index, e.status_code, e.error_code), (2, 409, 'EntityAlreadyExists'), 'error')
        eq(count('fail'), 1, 'entities')

    @check('a failing transaction (a stale ETag): 412 UpdateConditionNotSatisfied; (a missing entity): 404 ResourceNotFound at index 1')
    def _():
        e = tc.get_entity('fail', 'exists')
        tc.update_entity({'PartitionKey': 'fail', 'RowKey': 'exists', 'V': 1})
        http_err(lambda: tc.submit_transaction([('create', {'PartitionKey': 'fail', 'RowKey': 'm0'}),
                                                ('update', {'PartitionKey': 'fail', 'RowKey': 'exists', 'V': 2},
                                                 {'mode': 'merge', 'etag': e.metadata['etag'], 'match_condition': IF_NOT_MODIFIED})]),
                 412, 'UpdateConditionNotSatisfied', 'stale')
        err = http_err(lambda: tc.submit_transaction([('create', {'PartitionKey': 'fail', 'RowKey': 'm1'}),
                                                      ('delete', {'PartitionKey': 'fail', 'RowKey': 'missing'})]), 404, 'ResourceNotFound', 'missing')
        eq(err.index, 1, 'index')
        eq(count('fail'), 1, 'entities')

    @check('101 operations: 400 InvalidInput; one entity twice: 400 InvalidDuplicateRow; two partitions: refused by the client')
    def _():
        http_err(lambda: tc.submit_transaction([('upsert', {'PartitionKey': 'big', 'RowKey': str(i)}) for i in range(101)]),
                 400, 'InvalidInput', '101')
        http_err(lambda: tc.submit_transaction([('upsert', {'PartitionKey': 'dup', 'RowKey': 'a'}), ('upsert', {'PartitionKey': 'dup', 'RowKey': 'a'})]),
                 400, 'InvalidDuplicateRow', 'twice')
        raises(lambda: tc.submit_transaction([('upsert', {'PartitionKey': 'x1', 'RowKey': 'a'}), ('upsert', {'PartitionKey': 'x2', 'RowKey': 'a'})]))

    @check('a transaction on a missing table: 404 TableNotFound')
    def _():
        http_err(lambda: svc.get_table_client(uniq('dtnone')).submit_transaction([('create', {'PartitionKey': 'p', 'RowKey': 'a'})]),
                 404, 'TableNotFound', 'submit')

    svc.delete_table(t)


# -------------------------------------------------------------------------------------- queries
def query_checks():
    t = uniq('dtquery')
    tc = svc.create_table(t)
    for pk in ('pa', 'pb', 'pc'):
        tc.submit_transaction([('create', {'PartitionKey': pk, 'RowKey': 'r%02d' % i, 'N': i, 'Other': 'o' + pk}) for i in range(10)])
    want = ['%s/r%02d' % (pk, i) for pk in ('pa', 'pb', 'pc') for i in range(10)]

    def pages(query=None, params=None, select=None, n=None, new_client_each_page=False):
        keys, sizes, all_, token = [], [], [], None
        client = tc
        while True:
            if query:
                pager = client.query_entities(query, parameters=params, select=select, results_per_page=n).by_page(continuation_token=token)
            else:
                pager = client.list_entities(select=select, results_per_page=n).by_page(continuation_token=token)
            page = list(next(pager))
            sizes.append(len(page))
            keys += ['%s/%s' % (e.get('PartitionKey'), e.get('RowKey')) for e in page]
            all_ += page
            token = pager.continuation_token
            if not token or len(sizes) > 50:
                return keys, sizes, all_
            if new_client_each_page:
                client = TableClient.from_connection_string(CS, t, **NO_RETRY)

    @check('list_entities, 7 a page: five pages (7,7,7,7,2) across partitions, every entity once, in key order')
    def _():
        keys, sizes, _ = pages(n=7)
        eq((sizes, keys), ([7, 7, 7, 7, 2], want), 'pages')

    @check('each page by its continuation token in a new TableClient (tokens are durable): the same')
    def _():
        keys, sizes, _ = pages(n=7, new_client_each_page=True)
        eq((sizes, keys), ([7, 7, 7, 7, 2], want), 'pages')

    @check('query_entities PartitionKey eq @pk and N ge @n: five; or: in key order; inverted range: empty')
    def _():
        eq(pages('PartitionKey eq @pk and N ge @n', {'pk': 'pb', 'n': 5})[0], want[15:20], 'and')
        eq(pages("RowKey eq 'r07' or RowKey eq 'r03'")[0], ['pa/r03', 'pa/r07', 'pb/r03', 'pb/r07', 'pc/r03', 'pc/r07'], 'or')
        eq(pages("PartitionKey eq 'pc' and RowKey ge 'r05' and RowKey lt 'r02'")[0], [], 'inverted')

    @check('N lt 8, 5 a page: 24 entities over five pages')
    def _():
        keys, sizes, _ = pages('N lt 8', n=5)
        eq((len(keys), len(sizes)), (24, 5), 'entities and pages')

    @check('select N, 4 a page: only N on each of 8 pages')
    def _():
        keys, sizes, all_ = pages('N ge 0', select=['N'], n=4)
        eq(len(sizes), 8, 'pages')
        ok(all(list(e) == ['N'] for e in all_), 'properties %r' % [list(e) for e in all_][:2])

    @check('a malformed filter: 400 InvalidInput')
    def _():
        http_err(lambda: list(tc.query_entities('PartitionKey eq pa')), 400, 'InvalidInput', 'unquoted')
        http_err(lambda: list(tc.query_entities('(N eq 1) und (N eq 2)')), 400, 'InvalidInput', 'und')

    svc.delete_table(t)


# ------------------------------------------------------------------------------------------ SAS
def sas_checks():
    t = uniq('dtsas')
    tc = svc.create_table(t)
    for pk in 'abc':
        tc.submit_transaction([('create', {'PartitionKey': pk, 'RowKey': rk, 'V': 1}) for rk in '123'])
    hour = datetime.datetime.now(UTC) + datetime.timedelta(hours=1)

    def tsas(**kw):
        kw.setdefault('expiry', hour)
        return sas_table(t, generate_table_sas(CRED, t, **kw))

    @check('generate_table_sas raud: query, create, update, delete, a transaction')
    def _():
        s = tsas(permission=TableSasPermissions(read=True, add=True, update=True, delete=True))
        eq(len(list(s.list_entities())), 9, 'entities')
        s.create_entity({'PartitionKey': 'a', 'RowKey': '4'})
        s.update_entity({'PartitionKey': 'a', 'RowKey': '4', 'M': 1})
        s.delete_entity('a', '4')
        eq(len(s.submit_transaction([('upsert', {'PartitionKey': 'a', 'RowKey': '5'}), ('create', {'PartitionKey': 'a', 'RowKey': '6'})])), 2, 'results')

    @check('table SAS read only: create 403 AuthorizationPermissionMismatch')
    def _():
        s = tsas(permission=TableSasPermissions(read=True))
        s.get_entity('a', '1')
        http_err(lambda: s.create_entity({'PartitionKey': 'a', 'RowKey': '9'}), 403, 'AuthorizationPermissionMismatch', 'create')

    @check('table SAS with a key range (b/2 to c/1): pages stay inside; outside is 403 AuthorizationFailure, in a transaction too')
    def _():
        s = tsas(permission=TableSasPermissions(read=True, add=True, update=True), start_pk='b', start_rk='2', end_pk='c', end_rk='1')
        keys, token = [], None
        while True:
            pager = s.list_entities(results_per_page=1).by_page(continuation_token=token)
            keys += ['%s/%s' % (e['PartitionKey'], e['RowKey']) for e in next(pager)]
            token = pager.continuation_token
            if not token or len(keys) > 20:
                break
        eq(keys, ['b/2', 'b/3', 'c/1'], 'keys')
        http_err(lambda: s.get_entity('a', '1'), 403, 'AuthorizationFailure', 'read outside')
        http_err(lambda: s.submit_transaction([('upsert', {'PartitionKey': 'c', 'RowKey': '9'})]), 403, 'AuthorizationFailure', 'transaction outside')
        s.upsert_entity({'PartitionKey': 'b', 'RowKey': '5'})

    @check('table SAS expired, or https only: 403 (the client leaves ip_address_or_range out of a table SAS: its own bug)')
    def _():
        s = tsas(permission=TableSasPermissions(read=True), expiry=datetime.datetime.now(UTC) - datetime.timedelta(minutes=1))
        http_err(lambda: s.get_entity('a', '1'), 403, 'AuthenticationFailed', 'expired')
        ok('sip=' not in generate_table_sas(CRED, t, permission=TableSasPermissions(read=True), expiry=hour, ip_address_or_range='10.9.8.7'),
           'the client now writes sip: check it here')
        s = tsas(permission=TableSasPermissions(read=True), protocol='https')
        http_err(lambda: s.get_entity('a', '1'), 403, 'AuthorizationProtocolMismatch', 'https only')

    @check('table SAS naming a stored access policy: its permissions apply; removed: 403')
    def _():
        tc.set_table_access_policy({'readers': TableAccessPolicy(permission='r', expiry=hour)})
        s = sas_table(t, generate_table_sas(CRED, t, policy_id='readers'))
        s.get_entity('a', '1')
        http_err(lambda: s.create_entity({'PartitionKey': 'a', 'RowKey': '9'}), 403, 'AuthorizationPermissionMismatch', 'create')
        tc.set_table_access_policy({})
        http_err(lambda: s.get_entity('a', '1'), 403, 'AuthenticationFailed', 'after removal')

    # the client's ResourceTypes has no container flag; from_string keeps the letters given
    @check('generate_account_sas (srt=sco from_string, every permission): a table, entities, a transaction')
    def _():
        sas = generate_account_sas(CRED, ResourceTypes.from_string('sco'),
                                   AccountSasPermissions(read=True, write=True, delete=True, list=True, add=True, create=True, update=True), hour)
        s = TableServiceClient(ENDPOINT, credential=AzureSasCredential(sas), **NO_RETRY)
        n = uniq('dtacct')
        c = s.create_table(n)
        c.create_entity({'PartitionKey': 'p', 'RowKey': '1'})
        c.submit_transaction([('create', {'PartitionKey': 'p', 'RowKey': '2'}), ('update', {'PartitionKey': 'p', 'RowKey': '1', 'M': 1})])
        eq(len(list(c.list_entities())), 2, 'entities')
        s.delete_table(n)

    @check('account SAS srt=c: entities 403 AuthorizationResourceTypeMismatch; read only: create 403; another address: 403')
    def _():
        addr = generate_account_sas(CRED, ResourceTypes(object=True), AccountSasPermissions(read=True), hour, ip_address_or_range='10.9.8.7')
        http_err(lambda: sas_table(t, addr).get_entity('a', '1'), 403, 'AuthorizationSourceIPMismatch', 'another address')
        sas = generate_account_sas(CRED, ResourceTypes.from_string('c'), AccountSasPermissions(read=True, list=True), hour)
        list(TableServiceClient(ENDPOINT, credential=AzureSasCredential(sas), **NO_RETRY).list_tables())
        http_err(lambda: list(sas_table(t, sas).list_entities()), 403, 'AuthorizationResourceTypeMismatch', 'entities')
        sas = generate_account_sas(CRED, ResourceTypes(object=True), AccountSasPermissions(read=True), hour)
        sas_table(t, sas).get_entity('a', '1')
        http_err(lambda: sas_table(t, sas).create_entity({'PartitionKey': 'a', 'RowKey': '9'}), 403, 'AuthorizationPermissionMismatch', 'create')

    svc.delete_table(t)


# ------------------------------------------------------------------------------------------ ACL
def acl_checks():
    t = uniq('dtacl')
    tc = svc.create_table(t)
    start = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    expiry = datetime.datetime(2099, 6, 7, 8, 9, 10, tzinfo=UTC)

    @check('set_table_access_policy of three (one without a policy); get: the same, in the order set, None without')
    def _():
        tc.set_table_access_policy({'zeta': TableAccessPolicy(permission='r', start=start, expiry=expiry),
                                    'alpha': TableAccessPolicy(permission='raud', expiry=expiry), 'bare': None})
        got = tc.get_table_access_policy()
        eq(list(got), ['zeta', 'alpha', 'bare'], 'order')
        eq((got['zeta'].permission, got['zeta'].start, got['zeta'].expiry), ('r', start, expiry), 'zeta')
        eq((got['alpha'].permission, got['alpha'].start), ('raud', None), 'alpha')
        eq(got['bare'], None, 'bare')

    @check('none: none; six: refused (the client turns the 400 InvalidXmlDocument into its ValueError)')
    def _():
        tc.set_table_access_policy({})
        eq(tc.get_table_access_policy(), {}, 'identifiers')
        raises(lambda: tc.set_table_access_policy({str(i): TableAccessPolicy(permission='r', expiry=expiry) for i in range(6)}), ValueError)
        eq((Recorder.response().status_code, Recorder.response().headers.get('x-ms-error-code')), (400, 'InvalidXmlDocument'), 'answer')

    @check('get_table_access_policy of a missing table: 404 TableNotFound')
    def _():
        http_err(lambda: svc.get_table_client(uniq('dtnone')).get_table_access_policy(), 404, 'TableNotFound', 'get')

    svc.delete_table(t)


# ------------------------------------------------------------------ ETags and property order (issue 27)
def etag_order_checks():
    """Issue 27.3 (the ETag is W/"datetime'<Timestamp>'": a no-metadata page's ETag, which the
    client builds from Timestamp, works as If-Match), 27.4 (the client's empty transaction, an
    empty changeset part, is 202), 27.5 (PropertiesNeedValue, which the client turns into its
    ValueError), 27.10 (properties in the order written)."""
    t = uniq('dtetag')
    tc = svc.create_table(t)

    @check('(issue 27.3): create answers the ETag W/"datetime\'<the next read\'s Timestamp>\'"')
    def _():
        md = tc.create_entity({'PartitionKey': 'p', 'RowKey': 'a', 'V': 1})
        tc.get_entity('p', 'a')
        import json
        ts = json.loads(Recorder.response().text)['Timestamp']
        eq(md['etag'], 'W/"datetime\'%s\'"' % ts.replace(':', '%3A'), 'ETag')

    @check('(issue 27.3): a no-metadata page\'s ETag (built from Timestamp) works as If-Match')
    def _():
        c = TableClient.from_connection_string(CS, t, **NO_RETRY)
        e = list(c.query_entities("RowKey eq 'a'", headers={'Accept': 'application/json;odata=nometadata'}))[0]
        tc.update_entity({'PartitionKey': 'p', 'RowKey': 'a', 'V': 2}, etag=e.metadata['etag'], match_condition=IF_NOT_MODIFIED)

    @check('(issue 27.4): an empty transaction (the client sends one empty changeset part): 202, no results')
    def _():
        eq(tc.submit_transaction([]), [], 'results')
        eq(Recorder.response().status_code, 202, 'status')

    @check('(issue 27.5): an entity without PartitionKey or RowKey: 400 PropertiesNeedValue (the client\'s ValueError)')
    def _():
        e = raises(lambda: tc.create_entity({'RowKey': 'x'}), ValueError)
        eq(str(e), 'PartitionKey must be present in an entity', 'message')
        e = raises(lambda: tc.create_entity({'PartitionKey': 'x'}), ValueError)
        eq(str(e), 'RowKey must be present in an entity', 'message')
        eq((Recorder.response().status_code, Recorder.response().headers.get('x-ms-error-code')), (400, 'PropertiesNeedValue'), 'answer')

    @check('(issue 27.10): properties in the order written; a merge appends; a replace takes the request\'s order')
    def _():
        tc.create_entity({'PartitionKey': 'o', 'RowKey': '1', 'Zeta': 1, 'Alpha': 2, 'Mid': 3})
        eq(list(props(tc.get_entity('o', '1'))), ['Zeta', 'Alpha', 'Mid'], 'create')
        tc.update_entity({'PartitionKey': 'o', 'RowKey': '1', 'Beta': 4, 'Alpha': 5}, mode=UpdateMode.MERGE)
        eq(list(props(tc.get_entity('o', '1'))), ['Zeta', 'Alpha', 'Mid', 'Beta'], 'merge')
        tc.update_entity({'PartitionKey': 'o', 'RowKey': '1', 'Mid': 1, 'Zeta': 2}, mode=UpdateMode.REPLACE)
        eq([list(props(e)) for e in tc.query_entities("PartitionKey eq 'o'")], [['Mid', 'Zeta']], 'replace, in a page')

    svc.delete_table(t)


def crash_read(spec):
    tbl, pk, rk = spec.split(',', 2)

    @check('(issue 27.11): a point read right after the owning node crashed: 503 ServerBusy')
    def _():
        http_err(lambda: svc.get_table_client(tbl).get_entity(pk, rk), 503, 'ServerBusy', 'read')


if __name__ == '__main__':
    run(A, crash_read, [table_checks, entity_checks, type_checks, batch_checks, query_checks, sas_checks, acl_checks,
                        etag_order_checks])
