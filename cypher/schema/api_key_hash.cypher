// A key is found by its hash on every request.
// params: none
// mode: schema
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE
