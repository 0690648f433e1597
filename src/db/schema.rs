//! The schema, shared by both backends: only types PostgreSQL and SQLite both support
//! (BigInt, Integer, Text, Bool, Double, Timestamp). Keep in step with migrations/{postgres,sqlite}.

diesel::table! {
    accounts (id) {
        id -> BigInt,
        username -> Text,
        /// lower-cased username, unique (names are unique regardless of case)
        username_key -> Text,
        /// Argon2id PHC string; NULL for guests
        password_hash -> Nullable<Text>,
        is_guest -> Bool,
        created_at -> Timestamp,
        /// access tokens with a smaller `gen` claim are refused (logout, password change)
        token_generation -> BigInt,
        /// UTS #39 skeleton of `username_key`, unique (look-alike names)
        username_skeleton -> Nullable<Text>,
    }
}

diesel::table! {
    refresh_tokens (id) {
        id -> BigInt,
        account_id -> BigInt,
        /// all tokens descending from one login share a family; reuse revokes the family
        family -> Text,
        /// SHA-256 of the opaque token, hex
        token_hash -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
        revoked -> Bool,
    }
}

diesel::table! {
    formations (id) {
        id -> BigInt,
        account_id -> BigInt,
        name -> Text,
        /// JSON of siguo_rules::Formation
        data -> Text,
        created_at -> Timestamp,
        /// four_player | hidden_front (siguo_rules::Variant)
        variant -> Text,
    }
}

diesel::table! {
    games (id) {
        id -> BigInt,
        /// ranked | ranked_dual | hf_ranked | casual | practice
        kind -> Text,
        /// JSON of siguo_rules::Options
        options -> Text,
        /// deploying | battle | finished | aborted
        state -> Text,
        /// while deploying: JSON of the seats' set-ups; from the battle on: JSON of the
        /// deployments, one per seat of the variant in its order (N E S W; S N)
        deployments -> Nullable<Text>,
        /// JSON of siguo_rules::Status when finished
        result -> Nullable<Text>,
        created_at -> Timestamp,
        started_at -> Nullable<Timestamp>,
        finished_at -> Nullable<Timestamp>,
        /// four_player | hidden_front (siguo_rules::Variant)
        variant -> Text,
        /// cluster mode: the node that owns the game (runs its room)
        node_id -> Nullable<Text>,
        /// cluster mode: until when the owner's lease holds (renewed by its heartbeat)
        lease_until -> Nullable<Timestamp>,
        /// anyone may watch it and read its record (ranked, public casual room); else only its
        /// players (private room, practice)
        public -> Bool,
    }
}

diesel::table! {
    /// cluster mode: the nodes, with their address and last heartbeat
    nodes (id) {
        id -> Text,
        advertise -> Text,
        started_at -> Timestamp,
        heartbeat_at -> Timestamp,
    }
}

diesel::table! {
    game_players (game_id, seat) {
        game_id -> BigInt,
        /// N | E | S | W
        seat -> Text,
        /// NULL for a bot
        account_id -> Nullable<BigInt>,
        /// bot level for bot seats
        bot -> Nullable<Text>,
        escaped -> Bool,
        surrendered -> Bool,
    }
}

diesel::table! {
    game_actions (game_id, seq) {
        game_id -> BigInt,
        seq -> Integer,
        /// JSON of siguo_rules::Action
        action -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    ladder_stats (account_id, ladder) {
        account_id -> BigInt,
        /// ranked | ranked_dual | hf_ranked
        ladder -> Text,
        points -> Integer,
        games -> Integer,
        wins -> Integer,
        draws -> Integer,
        losses -> Integer,
        surrenders -> Integer,
        escapes -> Integer,
        /// hidden Glicko-2 matchmaking rating
        rating -> Double,
        rd -> Double,
        volatility -> Double,
    }
}

diesel::table! {
    ladder_results (game_id, account_id) {
        game_id -> BigInt,
        account_id -> BigInt,
        ladder -> Text,
        /// win | draw | loss | surrender | escape
        outcome -> Text,
        points -> Integer,
        created_at -> Timestamp,
        /// hf_ranked: the account's Glicko-2 rating and deviation after this game
        rating -> Nullable<Double>,
        rd -> Nullable<Double>,
        /// the account's rating before this game (the result shows the change)
        rating_before -> Nullable<Double>,
    }
}

diesel::table! {
    /// number of ladder_stats rows per (ladder, points); see src/ladder/record.rs
    ladder_point_counts (ladder, points) {
        ladder -> Text,
        points -> Integer,
        n -> BigInt,
    }
}

diesel::table! {
    /// number of players on a rated ladder's leaderboard (hf_ranked: ≥ 10 games, RD ≤ 110) per
    /// (ladder, floor of the rating); see src/ladder/record.rs
    ladder_rating_counts (ladder, bucket) {
        ladder -> Text,
        bucket -> Integer,
        n -> BigInt,
    }
}

diesel::table! {
    /// server-wide settings kept across restarts (e.g. the generated JWT secret)
    server_settings (name) {
        name -> Text,
        value -> Text,
    }
}

diesel::table! {
    /// cluster mode: the rooms people may join from any node, written by the node that runs each
    /// (src/cluster/rooms.rs)
    rooms (id) {
        id -> Text,
        node_id -> Text,
        game_id -> Nullable<BigInt>,
        kind -> Text,
        variant -> Text,
        public -> Bool,
        /// waiting | deploying | battle
        status -> Text,
        seats_filled -> Integer,
        /// SHA-256 (hex) of the upper-case invite code
        invite_hash -> Nullable<Text>,
        /// JSON list entry of a public waiting room
        summary -> Nullable<Text>,
        created_ms -> BigInt,
        updated_at -> Timestamp,
        /// JSON entry of a game in progress anyone may watch
        live_entry -> Nullable<Text>,
        /// JSON array of the accounts that may enter a private room; NULL: open to all
        members -> Nullable<Text>,
    }
}

diesel::table! {
    /// WebSocket tickets (`POST /api/ws/ticket`): single use, 30 s, any node (src/live/tickets.rs)
    ws_tickets (ticket_hash) {
        /// SHA-256 (hex) of the ticket
        ticket_hash -> Text,
        account_id -> BigInt,
        /// the access token's `exp` (Unix seconds) and generation
        token_exp -> BigInt,
        token_gen -> BigInt,
        expires_at -> Timestamp,
    }
}

diesel::joinable!(refresh_tokens -> accounts (account_id));
diesel::joinable!(ws_tickets -> accounts (account_id));
diesel::joinable!(formations -> accounts (account_id));
diesel::joinable!(game_players -> games (game_id));
diesel::joinable!(game_actions -> games (game_id));
diesel::joinable!(ladder_stats -> accounts (account_id));
diesel::joinable!(ladder_results -> accounts (account_id));

diesel::allow_tables_to_appear_in_same_query!(
    accounts,
    refresh_tokens,
    formations,
    games,
    game_players,
    game_actions,
    ladder_stats,
    ladder_results,
    ladder_point_counts,
    ladder_rating_counts,
    server_settings,
    nodes,
    rooms,
    ws_tickets,
);

// Cluster mode: the shared ranked queues (src/ladder/shared.rs); empty on a single node.

diesel::table! {
    /// which node has a socket of which account (renewed by that node every ladder tick)
    presence (account_id, node_id) {
        account_id -> BigInt,
        node_id -> Text,
        seen_at -> Timestamp,
    }
}

diesel::table! {
    /// a player waiting in a ranked queue (`proposal_id` NULL) or part of a proposed match
    queue_entries (account_id) {
        account_id -> BigInt,
        /// ranked | ranked_dual | hf_ranked
        ladder -> Text,
        username -> Text,
        ip -> Nullable<Text>,
        rating -> Double,
        rd -> Double,
        volatility -> Double,
        since -> Timestamp,
        /// first seen without a socket on any node (`None`: connected)
        offline_since -> Nullable<Timestamp>,
        proposal_id -> Nullable<BigInt>,
        accepted -> Bool,
        /// hf_ranked: the account of the entry's last rated game's opponent
        last_opponent -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// a match proposed to its players
    queue_proposals (id) {
        id -> BigInt,
        ladder -> Text,
        /// JSON: [[account id, name]; 4] by seat N, E, S, W
        seats -> Text,
        /// open (waiting for acceptances) | starting (all accepted, the game is being created)
        state -> Text,
        deadline -> Timestamp,
    }
}

diesel::table! {
    /// the last match of an account: its game and the game's owner node
    queue_matches (account_id) {
        account_id -> BigInt,
        ladder -> Text,
        game_id -> BigInt,
        room -> Text,
        node_id -> Text,
        /// the account's seats, letters joined by ','
        seats -> Text,
        at -> Timestamp,
    }
}

diesel::table! {
    /// proposals an account declined or did not answer
    queue_no_shows (account_id, at) {
        account_id -> BigInt,
        at -> Timestamp,
    }
}

diesel::table! {
    /// accounts kept out of the queues until `until`
    queue_cooldowns (account_id) {
        account_id -> BigInt,
        until -> Timestamp,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    presence,
    queue_entries,
    queue_proposals,
    queue_matches,
    queue_no_shows,
    queue_cooldowns,
);
