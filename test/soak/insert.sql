SELECT tablestore.insert_entity('Soak', format('{"PartitionKey":"n%s","RowKey":"%s","Name":"New %s","Age":%s}', s % 100, s, s, s % 90)::tablestore.entity)
FROM nextval('soak_ins') s;
