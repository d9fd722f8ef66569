/**
 * The course (and lesson) the tutor should answer within, from the courses the caller may use
 * (GET /api/v1/learning/courses). "No course" asks across all the company's material.
 */
import { useT } from "../lib/i18n";
import type { PickableCourse } from "../lib/types";

export interface ChatContext {
  course_id?: string;
  lesson_id?: string;
}

export function ContextPicker({
  courses,
  value,
  onChange,
  disabled,
}: {
  courses: PickableCourse[];
  value: ChatContext;
  onChange: (next: ChatContext) => void;
  disabled?: boolean;
}) {
  const { t } = useT();
  const course = courses.find((c) => c.id === value.course_id);
  return (
    <fieldset class="context-picker" disabled={disabled}>
      <legend class="sr-only">{t("context.legend")}</legend>
      <label>
        <span>{t("context.course")}</span>
        <select value={value.course_id ?? ""} onChange={(e) => onChange(e.currentTarget.value ? { course_id: e.currentTarget.value } : {})}>
          <option value="">{t("context.allMaterial")}</option>
          {courses.map((c) => (
            <option key={c.id} value={c.id}>
              {c.title}
            </option>
          ))}
        </select>
      </label>
      {course && course.lessons.length > 0 && (
        <label>
          <span>{t("context.lesson")}</span>
          <select
            value={value.lesson_id ?? ""}
            onChange={(e) => onChange({ course_id: course.id, ...(e.currentTarget.value ? { lesson_id: e.currentTarget.value } : {}) })}
          >
            <option value="">{t("context.wholeCourse")}</option>
            {course.lessons.map((l) => (
              <option key={l.id} value={l.id}>
                {l.module_title} · {l.title}
              </option>
            ))}
          </select>
        </label>
      )}
    </fieldset>
  );
}
