-- Hidden Front (issue 20): which game a game row and a saved formation are for. Rows written
-- before it are four-player games. Formation names are unique per account and game.
ALTER TABLE games ADD COLUMN variant TEXT NOT NULL DEFAULT 'four_player';
ALTER TABLE formations ADD COLUMN variant TEXT NOT NULL DEFAULT 'four_player';
ALTER TABLE formations DROP CONSTRAINT formations_account_id_name_key;
ALTER TABLE formations ADD CONSTRAINT formations_account_variant_name UNIQUE (account_id, variant, name);
