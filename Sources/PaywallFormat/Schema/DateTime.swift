/// RFC 3339 date-times (`2026-11-30T12:00:00Z`, `…T12:00:00.250+01:00`) read into milliseconds
/// since 1970, on bytes: events carry one per event, and a Foundation formatter per value was
/// the slowest part of reading a batch. Shape as `StringFormat.dateTime` checks it, plus real
/// calendar ranges (a 30 February is refused); fractions are rounded to the millisecond.
public enum DateTime {
    public static func millisecondsSince1970(_ text: String) -> Int64? {
        let u = Array(text.utf8)
        guard StringFormat.isDateTime(u) else { return nil }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(u[$1] - 0x30) } }
        let year = number(0..<4)
        let month = number(5..<7)
        let day = number(8..<10)
        let hour = number(11..<13)
        let minute = number(14..<16)
        let second = number(17..<19)
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var i = 19
        var millis = 0
        if u[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 100
            var roundUp = false
            var first = true
            while i < u.count, StringFormat.isDigit(u[i]) {
                let digit = Int(u[i] - 0x30)
                if scale > 0 {
                    millis += digit * scale
                } else if first {
                    roundUp = digit >= 5
                    first = false
                }
                scale /= 10
                i += 1
            }
            if roundUp { millis += 1 }
        }
        var offsetMinutes = 0
        if u[i] != UInt8(ascii: "Z") {
            let hours = number((i + 1)..<(i + 3))
            let minutes = number((i + 4)..<(i + 6))
            guard hours <= 23, minutes <= 59 else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (u[i] == UInt8(ascii: "-") ? -1 : 1)
        }
        let seconds =
            daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
            - offsetMinutes * 60
        return Int64(seconds) * 1000 + Int64(millis)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
