//! Calendar words: the English names of weekdays and months, in calendar
//! order. One list for every reader: save decisions read them as values
//! (`friday` is weekday 5), entity extraction never reads them as a name
//! (`Deploy in March` names no tool or person).

/// Weekday names, lower case, Monday first (weekday 1 at index 0).
pub const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Month names, lower case, January first (month 1 at index 0).
pub const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Whether `lower` (a case-folded word) names a weekday or a month.
#[must_use]
pub fn is_calendar_word(lower: &str) -> bool {
    WEEKDAYS.contains(&lower) || MONTHS.contains(&lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_in_calendar_order_and_complete() {
        assert_eq!(WEEKDAYS.len(), 7);
        assert_eq!(MONTHS.len(), 12);
        assert_eq!(WEEKDAYS.first(), Some(&"monday"));
        assert_eq!(MONTHS.get(11), Some(&"december"));
        assert!(is_calendar_word("may") && is_calendar_word("sunday"));
        assert!(!is_calendar_word("Monday") && !is_calendar_word("mon"));
    }
}
