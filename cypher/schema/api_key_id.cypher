// One ApiKey node per key id.
// params: none
// mode: schema
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE
