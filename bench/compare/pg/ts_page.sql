\set p random(0, :n / 1000 - 1)
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
SELECT p AS page, p->>'NextRowKey' AS nrk FROM tablestore.query_page('main', format('PartitionKey eq ''%s''', cmp_pk(:p * 1000)), NULL, 100, cmp_pk(:p * 1000), :nrk) p \gset
