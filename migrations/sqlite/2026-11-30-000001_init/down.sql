DROP TABLE ladder_results;
DROP TABLE ladder_stats;
DROP TABLE game_actions;
DROP TABLE game_players;
DROP TABLE games;
DROP TABLE formations;
DROP TABLE refresh_tokens;
DROP TABLE accounts;
