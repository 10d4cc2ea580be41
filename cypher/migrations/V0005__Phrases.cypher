// Named phrases shared by chunks (`graphrag link phrases`): one :Phrase per folded phrase.
CREATE CONSTRAINT phrase_id IF NOT EXISTS
FOR (p:Phrase) REQUIRE p.id IS UNIQUE;
