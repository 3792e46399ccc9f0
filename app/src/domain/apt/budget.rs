//! Paying a submission within the study's cap. The paper ends a worker's study when they have
//! earned $20; a submission pays its reward, cut to what is left under the cap, and the study is
//! complete once the total reaches the cap. The caller applies this inside the transaction that
//! records the submission, with the worker's total locked, so concurrent submits cannot overpay.

/// What one submission pays and where it leaves the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payout {
    /// What this submission pays, in cents (the reward, cut to the cap).
    pub paid_cents: i64,
    /// The worker's earnings after it, in cents.
    pub total_cents: i64,
    /// The total has reached the cap, so the worker's study is over.
    pub is_complete: bool,
}

/// Pays `reward_cents` to a worker who has earned `earned_cents` under a cap of `cap_cents`.
/// Negative inputs are treated as 0; an already complete worker is paid nothing.
pub fn payout(earned_cents: i64, reward_cents: i64, cap_cents: i64) -> Payout {
    let earned = earned_cents.max(0);
    let cap = cap_cents.max(0);
    let paid = reward_cents.max(0).min((cap - earned).max(0));
    let total = earned + paid;
    Payout {
        paid_cents: paid,
        total_cents: total,
        is_complete: total >= cap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reward_is_paid_in_full_below_the_cap() {
        assert_eq!(
            payout(100, 85, 2000),
            Payout {
                paid_cents: 85,
                total_cents: 185,
                is_complete: false
            }
        );
    }

    #[test]
    fn the_last_reward_is_cut_to_the_cap_and_completes_the_study() {
        assert_eq!(
            payout(1950, 85, 2000),
            Payout {
                paid_cents: 50,
                total_cents: 2000,
                is_complete: true
            }
        );
        assert_eq!(
            payout(1915, 85, 2000),
            Payout {
                paid_cents: 85,
                total_cents: 2000,
                is_complete: true
            }
        );
    }

    #[test]
    fn nothing_is_paid_past_the_cap() {
        assert_eq!(
            payout(2000, 85, 2000),
            Payout {
                paid_cents: 0,
                total_cents: 2000,
                is_complete: true
            }
        );
        assert_eq!(payout(2100, 85, 2000).paid_cents, 0);
    }

    #[test]
    fn a_zero_reward_pays_nothing_and_does_not_complete() {
        assert_eq!(
            payout(10, 0, 2000),
            Payout {
                paid_cents: 0,
                total_cents: 10,
                is_complete: false
            }
        );
        assert_eq!(payout(10, -5, 2000).paid_cents, 0);
    }

    #[test]
    fn any_sequence_of_payouts_stays_within_the_cap() {
        let mut total = 0;
        for reward in [
            100, 99, 1, 0, 100, 55, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100,
            100, 100, 100, 100, 100,
        ] {
            let p = payout(total, reward, 2000);
            assert!(p.paid_cents <= reward && p.total_cents <= 2000);
            total = p.total_cents;
        }
        assert_eq!(total, 2000);
    }
}
