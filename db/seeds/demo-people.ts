/**
 * People and their learning state in the demo organisation. The mix is chosen so admin queries
 * have something to find (overdue learners, finished courses, several departments and both
 * locales) and so the tutor's progress answers for employee@example.com are non-trivial: one
 * course half done with module 1 passed, one not started, and reviews already due.
 */
import type { CourseKey } from "./demo-courses";

export const DEMO_ADMIN_EMAIL = "admin@example.com";
export const DEMO_EMPLOYEE_EMAIL = "employee@example.com";

export interface DemoUser {
  email: string;
  name: string;
  role: "admin" | "employee";
  department: string;
  jobTitle: string;
  locale: "es" | "en";
}

const employee = (email: string, name: string, department: string, jobTitle: string, locale: "es" | "en"): DemoUser => ({
  email,
  name,
  role: "employee",
  department,
  jobTitle,
  locale,
});

/** Order matters: a user's fixed id is derived from its position, so only ever append. */
export const DEMO_USERS: readonly DemoUser[] = [
  { email: DEMO_ADMIN_EMAIL, name: "Ana Admin", role: "admin", department: "People", jobTitle: "L&D Manager", locale: "es" },
  employee(DEMO_EMPLOYEE_EMAIL, "Eli Employee", "Customer Service", "Customer Service Associate", "en"),
  employee("carlos.ruiz@example.com", "Carlos Ruiz", "Sales", "Sales Associate", "es"),
  employee("lucia.fernandez@example.com", "Lucía Fernández", "Sales", "Store Supervisor", "es"),
  employee("mark.thompson@example.com", "Mark Thompson", "Sales", "Sales Associate", "en"),
  employee("sofia.martin@example.com", "Sofía Martín", "Customer Service", "Team Lead", "es"),
  employee("priya.nair@example.com", "Priya Nair", "Customer Service", "Customer Service Associate", "en"),
  employee("javier.lopez@example.com", "Javier López", "Warehouse", "Forklift Operator", "es"),
  employee("tom.baker@example.com", "Tom Baker", "Warehouse", "Warehouse Operative", "en"),
  employee("elena.garcia@example.com", "Elena García", "Warehouse", "Shift Manager", "es"),
  employee("marta.sanchez@example.com", "Marta Sánchez", "Finance", "Accounts Assistant", "es"),
  employee("david.chen@example.com", "David Chen", "Finance", "Financial Analyst", "en"),
  // New in Sales and not yet enrolled anywhere: the admin assistant's demo assigns them a course.
  employee("nora.vidal@example.com", "Nora Vidal", "Sales", "Sales Associate", "es"),
  employee("hannah.lee@example.com", "Hannah Lee", "Sales", "Sales Associate", "en"),
];

export const DEMO_SKILL_CATEGORIES: readonly { name: string; skills: string[] }[] = [
  { name: "Customer", skills: ["Returns handling", "Customer communication", "Complaint resolution"] },
  { name: "Operations", skills: ["Warehouse safety", "Forklift operation", "Inventory control"] },
];

export const DEMO_USER_SKILLS: readonly { email: string; skill: string; level: number }[] = [
  { email: DEMO_EMPLOYEE_EMAIL, skill: "Returns handling", level: 3 },
  { email: DEMO_EMPLOYEE_EMAIL, skill: "Customer communication", level: 4 },
  { email: DEMO_EMPLOYEE_EMAIL, skill: "Complaint resolution", level: 2 },
  { email: DEMO_EMPLOYEE_EMAIL, skill: "Warehouse safety", level: 1 },
  { email: "carlos.ruiz@example.com", skill: "Returns handling", level: 4 },
  { email: "carlos.ruiz@example.com", skill: "Customer communication", level: 3 },
  { email: "sofia.martin@example.com", skill: "Complaint resolution", level: 5 },
  { email: "sofia.martin@example.com", skill: "Customer communication", level: 5 },
  { email: "priya.nair@example.com", skill: "Complaint resolution", level: 3 },
  { email: "javier.lopez@example.com", skill: "Forklift operation", level: 5 },
  { email: "javier.lopez@example.com", skill: "Warehouse safety", level: 4 },
  { email: "tom.baker@example.com", skill: "Warehouse safety", level: 2 },
  { email: "elena.garcia@example.com", skill: "Inventory control", level: 4 },
  { email: "marta.sanchez@example.com", skill: "Inventory control", level: 2 },
];

export interface DemoEnrollment {
  email: string;
  course: CourseKey;
  status: "not_started" | "in_progress" | "completed";
  /** Relative to seeding time; negative means overdue. */
  deadlineInDays: number | null;
  score: number | null;
  startedDaysAgo: number | null;
  completedDaysAgo: number | null;
}

const enrol = (
  email: string,
  course: CourseKey,
  status: DemoEnrollment["status"],
  deadlineInDays: number | null,
  score: number | null = null,
  startedDaysAgo: number | null = status === "not_started" ? null : 20,
  completedDaysAgo: number | null = status === "completed" ? 5 : null,
): DemoEnrollment => ({ email, course, status, deadlineInDays, score, startedDaysAgo, completedDaysAgo });

export const DEMO_ENROLLMENTS: readonly DemoEnrollment[] = [
  enrol(DEMO_EMPLOYEE_EMAIL, "returnsEssentials", "in_progress", 14, 0.8, 10),
  enrol(DEMO_EMPLOYEE_EMAIL, "warehouseSafety", "not_started", 30),
  enrol("carlos.ruiz@example.com", "returnsEssentials", "completed", 10, 0.92, 40, 20),
  enrol("carlos.ruiz@example.com", "customerExcellence", "in_progress", -5, 0.6),
  enrol("lucia.fernandez@example.com", "returnsEssentials", "in_progress", -3, 0.55),
  enrol("mark.thompson@example.com", "returnsEssentials", "not_started", 21),
  enrol("sofia.martin@example.com", "customerExcellence", "completed", null, 0.88),
  enrol("sofia.martin@example.com", "returnsEssentials", "completed", null, 0.95, 60, 45),
  enrol("priya.nair@example.com", "returnsEssentials", "in_progress", 7, 0.7),
  enrol("priya.nair@example.com", "customerExcellence", "not_started", 45),
  enrol("javier.lopez@example.com", "warehouseSafety", "completed", null, 1, 30, 25),
  enrol("tom.baker@example.com", "warehouseSafety", "in_progress", -2, 0.4),
  enrol("elena.garcia@example.com", "warehouseSafety", "not_started", 10),
  enrol("marta.sanchez@example.com", "returnsEssentials", "not_started", 30),
  enrol("david.chen@example.com", "customerExcellence", "in_progress", 14, 0.6),
];

/** Zero-based path to an exercise inside DEMO_COURSES. */
export interface ExerciseRef {
  course: CourseKey;
  module: number;
  lesson: number;
  exercise: number;
}

const ex = (course: CourseKey, module: number, lesson: number, exercise = 0): ExerciseRef => ({ course, module, lesson, exercise });

/** Append-only, like DEMO_USERS: ids come from positions. */
export const DEMO_ATTEMPTS: readonly { email: string; exercise: ExerciseRef; score: number; passed: boolean; daysAgo: number }[] = [
  // Module 1 of Returns Essentials complete for the demo employee; module 2 started but failed.
  { email: DEMO_EMPLOYEE_EMAIL, exercise: ex("returnsEssentials", 0, 0), score: 1, passed: true, daysAgo: 9 },
  { email: DEMO_EMPLOYEE_EMAIL, exercise: ex("returnsEssentials", 0, 1), score: 0, passed: false, daysAgo: 8 },
  { email: DEMO_EMPLOYEE_EMAIL, exercise: ex("returnsEssentials", 0, 1), score: 1, passed: true, daysAgo: 7 },
  { email: DEMO_EMPLOYEE_EMAIL, exercise: ex("returnsEssentials", 1, 0), score: 0.3, passed: false, daysAgo: 2 },
  { email: "carlos.ruiz@example.com", exercise: ex("returnsEssentials", 0, 0), score: 1, passed: true, daysAgo: 35 },
  { email: "carlos.ruiz@example.com", exercise: ex("returnsEssentials", 2, 1), score: 1, passed: true, daysAgo: 21 },
  { email: "tom.baker@example.com", exercise: ex("warehouseSafety", 0, 1), score: 0, passed: false, daysAgo: 4 },
  { email: "javier.lopez@example.com", exercise: ex("warehouseSafety", 0, 0), score: 1, passed: true, daysAgo: 28 },
];

export const DEMO_REVIEWS: readonly { email: string; exercise: ExerciseRef; dueInDays: number; intervalDays: number; ease: number }[] = [
  { email: DEMO_EMPLOYEE_EMAIL, exercise: ex("returnsEssentials", 0, 0), dueInDays: -2, intervalDays: 3, ease: 2.5 },
  { email: DEMO_EMPLOYEE_EMAIL, exercise: ex("returnsEssentials", 0, 1), dueInDays: -1, intervalDays: 1, ease: 2.3 },
  { email: DEMO_EMPLOYEE_EMAIL, exercise: ex("returnsEssentials", 1, 0), dueInDays: 3, intervalDays: 1, ease: 2.1 },
  { email: "carlos.ruiz@example.com", exercise: ex("returnsEssentials", 0, 0), dueInDays: 5, intervalDays: 14, ease: 2.7 },
];
