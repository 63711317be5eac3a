-- A generation answered from the response cache (docs/adr/0121): marked, with the cost the stored
-- answer's generations charged (what the hit avoided). A constant default and a nullable column:
-- no table rewrite.
ALTER TABLE "generations" ADD COLUMN "cache_hit" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "generations" ADD COLUMN "cost_avoided" DECIMAL(24,12);
