ALTER TABLE formations DROP CONSTRAINT formations_account_variant_name;
DELETE FROM formations WHERE variant <> 'four_player';
ALTER TABLE formations ADD CONSTRAINT formations_account_id_name_key UNIQUE (account_id, name);
ALTER TABLE formations DROP COLUMN variant;
ALTER TABLE games DROP COLUMN variant;
